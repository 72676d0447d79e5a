import { type TMonitorConfig, ZMonitorConfig } from "@benchboard/core";
import {
  ConflictError,
  createTarget,
  type Db,
  deleteTarget,
  getTarget,
  listTargets,
  NotFoundError,
  resolveMonitors,
  updateTarget,
} from "@benchboard/db";
import { probeMonitor } from "@benchboard/loadgen/monitors/index";
import { z } from "zod";
import { withinLimits } from "../input-limits";
import { assertTargetAllowed } from "../launch-safety";
import { enforceRateLimit, memberProcedure, orgProcedure, router } from "../trpc";

const ZHttpUrl = z
  .string()
  .trim()
  .max(2_000, "a URL is at most 2,000 characters")
  .refine((v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol), "must be an http:// or https:// URL");

const ZHeaderName = z
  .string()
  .trim()
  .min(1, "header name is required")
  .max(200)
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, "not a valid header name");

/** A secret header's value is write-only: leave it empty to keep what is stored. */
export const ZTargetHeaderInput = z.object({
  name: ZHeaderName,
  value: z.string().max(8_000).nullish(),
  secret: z.boolean().default(false),
  /** The header's name before this edit, to find its stored secret value. */
  from: z.string().max(200).nullish(),
});

export const ZTargetMonitorInput = z.object({
  /** A stored monitor's id, to keep its password. */
  id: z.string().max(40).nullish(),
  config: ZMonitorConfig.superRefine(withinLimits({ maxText: 2_000, maxEntries: 100 })),
  /** RabbitMQ password; empty keeps the stored one. Never returned. */
  password: z.string().max(1_000).nullish(),
  clearPassword: z.boolean().optional(),
});

const ZTargetFields = z.object({
  name: z.string().trim().min(1, "name is required").max(80, "name is at most 80 characters"),
  kind: z.enum(["http", "llm", "ws_chat"]),
  baseUrl: ZHttpUrl,
  headers: z
    .array(ZTargetHeaderInput)
    .max(50)
    .default([])
    .superRefine((headers, ctx) => {
      const seen = new Set<string>();
      headers.forEach((h, i) => {
        const key = h.name.toLowerCase();
        if (seen.has(key)) ctx.addIssue({ code: "custom", path: [i, "name"], message: "header names must be unique" });
        seen.add(key);
      });
    }),
  monitors: z.array(ZTargetMonitorInput).max(10).default([]),
  configApplyUrl: ZHttpUrl.nullish().or(z.literal("").transform(() => null)),
});

export const ZCreateTargetInput = ZTargetFields.extend({ projectId: z.string().min(1, "project is required") });
export type TCreateTargetInput = z.infer<typeof ZCreateTargetInput>;
export const ZUpdateTargetInput = ZTargetFields.extend({ id: z.string().min(1) });
export type TUpdateTargetInput = z.infer<typeof ZUpdateTargetInput>;

export const ZTestMonitorsInput = z.object({
  /** The saved target whose stored passwords fill in monitors that leave theirs empty. */
  targetId: z.string().nullish(),
  /** Monitors as the form has them now; absent means the target's saved monitors. */
  monitors: z.array(ZTargetMonitorInput).max(10).nullish(),
});

/**
 * Refuse link-local and metadata addresses (unless the organization allows them) for the base
 * URL, the config-apply URL and every monitor URL, naming the field as the form has it.
 */
async function assertAddresses(
  db: Db,
  orgId: string,
  urls: { baseUrl?: string; configApplyUrl?: string | null; monitors: TMonitorConfig[] },
) {
  try {
    await assertTargetAllowed(db, orgId, {
      baseUrl: urls.baseUrl ?? "",
      configApplyUrl: urls.configApplyUrl,
      monitors: urls.monitors.map((m) => ({ url: "url" in m ? m.url : undefined })),
    });
  } catch (err) {
    const monitor = err instanceof ConflictError ? /^monitors\.(\d+)\.url$/.exec(err.field) : null;
    if (err instanceof ConflictError && monitor)
      throw new ConflictError(`monitors.${monitor[1]}.config.url`, err.message);
    throw err;
  }
}

export const targetRouter = router({
  list: orgProcedure
    .input(z.object({ projectId: z.string().optional() }).optional())
    .query(({ ctx, input }) => listTargets(ctx.db, ctx.orgId, input?.projectId)),
  byId: orgProcedure.input(z.object({ id: z.string() })).query(async ({ ctx, input }) => {
    const target = await getTarget(ctx.db, ctx.orgId, input.id);
    if (!target) throw new NotFoundError("id", "target not found");
    return target;
  }),
  create: memberProcedure.input(ZCreateTargetInput).mutation(async ({ ctx, input }) => {
    const project = await ctx.db.project.findFirst({ where: { orgId: ctx.orgId, id: input.projectId } });
    if (!project) throw new NotFoundError("projectId", "project not found");
    await assertAddresses(ctx.db, ctx.orgId, { ...input, monitors: input.monitors.map((m) => m.config) });
    return createTarget(ctx.db, ctx.orgId, input, { secretKey: ctx.secretKey });
  }),
  update: memberProcedure.input(ZUpdateTargetInput).mutation(async ({ ctx, input }) => {
    const { id, ...fields } = input;
    await assertAddresses(ctx.db, ctx.orgId, { ...fields, monitors: fields.monitors.map((m) => m.config) });
    return updateTarget(ctx.db, ctx.orgId, id, fields, { secretKey: ctx.secretKey });
  }),
  delete: memberProcedure
    .input(z.object({ id: z.string().min(1) }))
    .mutation(({ ctx, input }) => deleteTarget(ctx.db, ctx.orgId, input.id)),
  /** What each monitor reads right now ("test connection"); passwords are used, never returned. */
  testMonitors: memberProcedure.input(ZTestMonitorsInput).mutation(async ({ ctx, input }) => {
    await enforceRateLimit(ctx, `test-connection:${ctx.orgId}`, 30, 60, "connection tests in this organization");
    const configs = await resolveMonitors(ctx.db, ctx.orgId, input.targetId, input.monitors ?? null, {
      secretKey: ctx.secretKey,
    });
    // A "test connection" aimed at a metadata address would read it for the caller: same rule.
    // Only the monitors are judged here, so the base URL is a loopback stand-in.
    await assertAddresses(ctx.db, ctx.orgId, { baseUrl: "http://127.0.0.1/", monitors: configs });
    const results = await Promise.all(configs.map((config) => probeMonitor(config)));
    return results.map((r, index) => ({
      index,
      kind: configs[index]!.kind,
      ok: r.ok,
      readings: r.readings,
      details: r.details,
      error: r.error ?? null,
      tookMs: Math.round(r.tookMs),
    }));
  }),
});
