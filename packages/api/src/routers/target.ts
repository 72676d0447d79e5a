import { isIP } from "node:net";
import {
  PROBE_MAX_REQUESTS,
  RESERVED_KEYS,
  type TMonitorConfig,
  VERIFICATION_DNS_LABEL,
  VERIFICATION_PATH,
  verificationRecord,
  ZHeaderName,
  ZHttpUrl,
  ZMonitorConfig,
  ZOverheadStages,
  ZTargetName,
} from "@benchboard/core";
import {
  assertInstallMayConnect,
  assertProjectInOrg,
  ConflictError,
  createTarget,
  deleteTarget,
  ensureProbeScenario,
  getTarget,
  getVerificationToken,
  installMayConnect,
  isInstallOrganization,
  listTargets,
  NotFoundError,
  originStatus,
  recordVerifiedOrigin,
  requestsMayReach,
  resolveMonitors,
  UNVERIFIED_REQUEST_MESSAGE,
  updateTarget,
} from "@benchboard/db";
import { ZWorkerLabel } from "@benchboard/jobs";
import { type ProbeResult, probeMonitor } from "@benchboard/loadgen/monitors/index";
import { verifyOrigin } from "@benchboard/loadgen/verify-origin";
import { z } from "zod";
import { withinLimits } from "../input-limits";
import { assertTargetAllowed, installSettingsFor, safetyPolicyFor } from "../launch-safety";
import {
  type Context,
  enforceLaunchLimit,
  enforceRateLimit,
  launchAsCaller,
  memberProcedure,
  orgProcedure,
  router,
} from "../trpc";

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
  name: ZTargetName,
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
        if (RESERVED_KEYS.has(key))
          ctx.addIssue({ code: "custom", path: [i, "name"], message: `${h.name} is a reserved name` });
        seen.add(key);
      });
    }),
  monitors: z.array(ZTargetMonitorInput).max(10).default([]),
  configApplyUrl: ZHttpUrl.nullish().or(z.literal("").transform(() => null)),
  /** Server-Timing stages that are the target's own work; left out on update keeps the stored list. */
  overheadStages: ZOverheadStages.optional(),
  /**
   * Agent-only: reached only by the organization's agents offering this label, from inside its
   * network; its addresses may be private and the install never connects to them.
   */
  agentLabel: ZWorkerLabel.nullish(),
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
 * Refuse metadata, link-local and (unless the operator allows them) private addresses for the
 * base URL, the config-apply URL and every monitor URL, naming the field as the form has it.
 */
/**
 * A local process monitor reads the processes of the host its run runs on. On the install's
 * workers only the operator's own organization may do that; an agent-only target's runs all go
 * to the organization's own agents, so any organization may watch a process of the agent's host.
 * Anything else is refused on save, rather than keep a monitor that reads nothing during every run.
 */
async function assertProcessMonitorsAllowed(ctx: Context, monitors: TMonitorConfig[], agentLabel: string | null) {
  const at = monitors.findIndex((m) => m.kind === "process");
  if (at < 0 || agentLabel) return;
  if (!(ctx.orgId && (await isInstallOrganization(ctx.db, ctx.orgId)))) {
    throw new ConflictError(
      `monitors.${at}.config.kind`,
      "a local process monitor reads the processes of the host the run runs on: on the install's workers only the install's own organization may use one; make the target agent-only (agentLabel) to watch a process on your agent's host, or read the service's memory from its Prometheus endpoint",
    );
  }
}

async function assertAddresses(
  ctx: Context,
  urls: { baseUrl?: string; configApplyUrl?: string | null; monitors: TMonitorConfig[] },
  options: { skipBaseUrl?: boolean } = {},
) {
  const policy = await safetyPolicyFor(ctx);
  try {
    await assertTargetAllowed(policy, {
      baseUrl: options.skipBaseUrl ? "" : (urls.baseUrl ?? ""),
      configApplyUrl: urls.configApplyUrl,
      monitors: urls.monitors.map((m) => ({ url: "url" in m ? m.url : undefined })),
    });
  } catch (err) {
    const monitor = err instanceof ConflictError ? /^monitors\.(\d+)\.url$/.exec(err.field) : null;
    if (err instanceof ConflictError && monitor)
      throw new ConflictError(`monitors.${monitor[1]}.config.url`, err.message);
    throw err;
  }
  return policy;
}

/** Where the target's origin stands and how to prove it, for the target page. */
async function verificationView(ctx: Context & { orgId: string }, targetId: string) {
  const target = await getTarget(ctx.db, ctx.orgId, targetId);
  if (!target) throw new NotFoundError("targetId", "target not found");
  const status = await originStatus(ctx.db, ctx.orgId, target.baseUrl);
  const token = await getVerificationToken(ctx.db, ctx.orgId);
  const host = status.origin ? new URL(status.origin).hostname.replace(/^\[|\]$/g, "") : "";
  return {
    targetId,
    origin: status.origin,
    trusted: status.trusted,
    verified: status.verified
      ? {
          method: status.verified.method,
          at: status.verified.verifiedAt,
          expiresAt: status.verified.expiresAt,
          // DNS proves the name; load needs the token served over HTTP from the load's address.
          coversLoad: status.verified.method === "http" && status.verified.addresses.length > 0,
        }
      : null,
    expiredAt: status.expired?.expiresAt ?? null,
    probeMaxRequests: PROBE_MAX_REQUESTS,
    http: { url: status.origin ? `${status.origin}${VERIFICATION_PATH}` : null, content: verificationRecord(token) },
    // A TXT record hangs off a host name: an IP origin can only publish the HTTP file.
    dns: host && !isIP(host) ? { name: `${VERIFICATION_DNS_LABEL}.${host}`, value: verificationRecord(token) } : null,
  };
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
    await assertProjectInOrg(ctx.db, ctx.orgId, input.projectId);
    await assertProcessMonitorsAllowed(
      ctx,
      input.monitors.map((m) => m.config),
      input.agentLabel ?? null,
    );
    // An agent-only target's names may resolve only inside the tenant's network: not checked here.
    if (installMayConnect({ agentLabel: input.agentLabel ?? null })) {
      await assertAddresses(ctx, { ...input, monitors: input.monitors.map((m) => m.config) });
    }
    return createTarget(ctx.db, ctx.orgId, input, { secretKey: ctx.secretKey });
  }),
  update: memberProcedure.input(ZUpdateTargetInput).mutation(async ({ ctx, input }) => {
    const { id, ...fields } = input;
    const current = await getTarget(ctx.db, ctx.orgId, id);
    if (!current) throw new NotFoundError("id", "target not found");
    const agentLabel = fields.agentLabel === undefined ? current.agentLabel : fields.agentLabel;
    await assertProcessMonitorsAllowed(
      ctx,
      fields.monitors.map((m) => m.config),
      agentLabel,
    );
    if (installMayConnect({ agentLabel })) {
      await assertAddresses(ctx, { ...fields, monitors: fields.monitors.map((m) => m.config) });
    }
    return updateTarget(ctx.db, ctx.orgId, id, fields, { secretKey: ctx.secretKey });
  }),
  delete: memberProcedure
    .input(z.object({ id: z.string().min(1) }))
    .mutation(({ ctx, input }) => deleteTarget(ctx.db, ctx.orgId, input.id)),
  /** What each monitor reads right now ("test connection"); passwords are used, never returned. */
  testMonitors: memberProcedure.input(ZTestMonitorsInput).mutation(async ({ ctx, input }) => {
    await enforceRateLimit(ctx, `test-connection:${ctx.orgId}`, 30, 60, "connection tests in this organization");
    if (input.targetId) {
      const saved = await getTarget(ctx.db, ctx.orgId, input.targetId);
      if (saved) assertInstallMayConnect(saved, "targetId");
    }
    const configs = await resolveMonitors(ctx.db, ctx.orgId, input.targetId, input.monitors ?? null, {
      secretKey: ctx.secretKey,
    });
    // A "test connection" goes where the same rules let monitors go, through the same outbound
    // client (no redirects, the checked address, no body returned). Local process monitors are
    // never read here: this is the web process, and its host is not the target.
    const policy = await assertAddresses(ctx, { monitors: configs }, { skipBaseUrl: true });
    // A tenant reads only what it proved it controls; an unverified URL is not requested at all.
    const install = await installSettingsFor(ctx);
    const unverified = await Promise.all(
      configs.map(async (c) => "url" in c && !(await requestsMayReach(ctx.db, ctx.orgId, c.url, install))),
    );
    const results = await Promise.all(
      configs.map((config, i) =>
        unverified[i]
          ? Promise.resolve<ProbeResult>({
              ok: false,
              readings: {},
              details: {},
              error: `${new URL((config as { url: string }).url).origin} ${UNVERIFIED_REQUEST_MESSAGE}`,
              tookMs: 0,
            })
          : probeMonitor(config, { policy, allowProcess: false }),
      ),
    );
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
  /** The target origin's verification state, with the token to publish and where. */
  verification: orgProcedure
    .input(z.object({ targetId: z.string().min(1) }))
    .query(({ ctx, input }) => verificationView(ctx, input.targetId)),
  /** Check that the target's origin publishes the organization's token (HTTP file or DNS TXT). */
  verify: memberProcedure
    .input(z.object({ targetId: z.string().min(1), method: z.enum(["http", "dns"]) }))
    .mutation(async ({ ctx, input }) => {
      const saved = await getTarget(ctx.db, ctx.orgId, input.targetId);
      if (saved) assertInstallMayConnect(saved, "targetId");
      const view = await verificationView(ctx, input.targetId);
      if (!view.origin) throw new ConflictError("targetId", "the target's URL has no origin to verify");
      if (input.method === "dns" && !view.dns) {
        throw new ConflictError(
          "method",
          `${view.origin} is an IP address, which has no DNS name to hold a TXT record: serve the HTTP file instead`,
        );
      }
      await enforceRateLimit(ctx, `verify:${ctx.orgId}`, 30, 600, "verification attempts");
      const policy = await safetyPolicyFor(ctx);
      const token = await getVerificationToken(ctx.db, ctx.orgId);
      const result = await verifyOrigin(view.origin, token, input.method, {
        policy,
        resolveTxt: ctx.network?.resolveTxt,
      });
      if (!result.ok) throw new ConflictError("method", `not verified: ${result.reason}`);
      const settings = await installSettingsFor(ctx);
      await recordVerifiedOrigin(ctx.db, ctx.orgId, view.origin, result.method, {
        addresses: result.addresses,
        days: settings.verificationDays,
      });
      return verificationView(ctx, input.targetId);
    }),
  /**
   * Send a probe: the project's probe scenario (made on first use), launched once at the target.
   * It is what an origin not yet verified may receive, and a quick "does it answer?" for any.
   */
  probe: memberProcedure.input(z.object({ targetId: z.string().min(1).max(64) })).mutation(async ({ ctx, input }) => {
    await enforceLaunchLimit(ctx);
    const target = await getTarget(ctx.db, ctx.orgId, input.targetId);
    if (!target) throw new NotFoundError("targetId", "target not found");
    const scenario = await ensureProbeScenario(ctx.db, ctx.orgId, target.projectId);
    const { runs } = await launchAsCaller(ctx, { targetId: target.id, scenarioId: scenario.id, tags: ["probe"] });
    return { id: runs[0]!.id, number: runs[0]!.number };
  }),
});
