import { ZMonitorConfig, ZOverheadStages } from "@benchboard/core";
import { type Db, inOneTransaction, type storedSecretHeaderValues } from "@benchboard/db";
import { z } from "zod";
import type { createCaller } from "./root";
import { ZCreateInstanceConfigInput } from "./routers/instance-config";
import { ZCreateScenarioInput } from "./routers/scenario";
import { ZCreateTargetInput } from "./routers/target";
import { ZSetThresholdsInput } from "./routers/trend";

/**
 * A project's configuration as a document (`benchboard.yml`): its thresholds, targets, instance
 * configs and scenarios, by name. Applying it creates what is missing and updates what differs
 * through the same procedures the web app calls (so every check — target safety, caps, limits —
 * is the same), and leaves what the file does not name alone. Secret header values and monitor
 * passwords are write-only: exported files name secret headers without their values.
 */
export const CONFIG_DOCUMENT_VERSION = 1 as const;

export const ZConfigHeader = z.strictObject({
  name: z.string(),
  /** A secret header without a value keeps the stored value. */
  value: z.string().max(8_000).optional(),
  secret: z.boolean().optional(),
});

export const ZConfigTarget = z.strictObject({
  name: ZCreateTargetInput.shape.name,
  kind: ZCreateTargetInput.shape.kind,
  baseUrl: ZCreateTargetInput.shape.baseUrl,
  headers: z.array(ZConfigHeader).max(50).default([]),
  /** Monitor settings; a RabbitMQ password is set in the web app, never in the file. */
  monitors: z.array(ZMonitorConfig).max(10).default([]),
  configApplyUrl: z.string().nullish(),
  /** Server-Timing stages that are the target's own work (its overhead). */
  overheadStages: ZOverheadStages.default([]),
  /**
   * Where its load comes from: `workers` (the install's, the default) or `agent:<label>` — an
   * agent-only target, reached only by the organization's agents with that label.
   */
  location: z
    .string()
    .regex(/^(workers|agent:[a-z0-9][a-z0-9._-]{0,62})$/, "must be workers or agent:<label>")
    .default("workers"),
});

export const ZConfigInstanceConfig = ZCreateInstanceConfigInput.omit({ projectId: true }).strict();
export const ZConfigScenario = ZCreateScenarioInput.omit({ projectId: true }).strict();

function uniqueNames<T extends { name: string }>(items: T[], ctx: z.RefinementCtx) {
  const seen = new Set<string>();
  items.forEach((item, i) => {
    if (seen.has(item.name))
      ctx.addIssue({ code: "custom", path: [i, "name"], message: `"${item.name}" appears twice` });
    seen.add(item.name);
  });
}

export const ZConfigDocument = z.strictObject({
  version: z.literal(CONFIG_DOCUMENT_VERSION, { error: "must be 1" }),
  /**
   * The project's slug, for the reader: the project applied to is the one in the request. When
   * no project has that slug, applying creates it (named `projectName`, or the slug).
   */
  project: z.string().max(200).optional(),
  projectName: z.string().trim().min(1).max(80, "at most 80 characters").optional(),
  thresholds: ZSetThresholdsInput.shape.thresholds.optional(),
  targets: z.array(ZConfigTarget).max(200).default([]).superRefine(uniqueNames),
  instanceConfigs: z.array(ZConfigInstanceConfig).max(200).default([]).superRefine(uniqueNames),
  scenarios: z.array(ZConfigScenario).max(500).default([]).superRefine(uniqueNames),
});
export type TConfigDocument = z.infer<typeof ZConfigDocument>;

/**
 * One line of an apply's plan. `project` is the project the document creates (it comes first);
 * `thresholds` the project's thresholds (named `project`).
 */
export const ZConfigChange = z.object({
  kind: z.enum(["project", "thresholds", "target", "instanceConfig", "scenario"]),
  name: z.string(),
  action: z.enum(["create", "update", "unchanged"]),
  /** The fields that differ, for an update. */
  fields: z.array(z.string()).optional(),
});
export type ConfigChange = z.infer<typeof ZConfigChange>;
export type ConfigKind = ConfigChange["kind"];

type Caller = ReturnType<typeof createCaller>;

interface ApplyContext {
  caller: Caller;
  /** The same caller acting on another database handle (the apply's transaction). */
  callerFor: (db: Db) => Caller;
  db: Parameters<typeof storedSecretHeaderValues>[0];
  orgId: string;
  secretKey: Buffer | null;
}

/** JSON with sorted keys and without null or undefined members: equal configurations compare equal. */
function canonical(value: unknown): string {
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (v && typeof v === "object") {
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(v).sort()) {
        const member = (v as Record<string, unknown>)[key];
        if (member !== null && member !== undefined) out[key] = strip(member);
      }
      return out;
    }
    return v;
  };
  return JSON.stringify(strip(value));
}

function differingFields(current: Record<string, unknown>, desired: Record<string, unknown>): string[] {
  const keys = new Set([...Object.keys(current), ...Object.keys(desired)]);
  return [...keys].filter((k) => canonical(current[k]) !== canonical(desired[k])).sort();
}

type StoredTarget = Awaited<ReturnType<Caller["target"]["list"]>>[number];
type StoredConfig = Awaited<ReturnType<Caller["instanceConfig"]["list"]>>[number];
type StoredScenario = Awaited<ReturnType<Caller["scenario"]["list"]>>[number];

function targetDoc(t: StoredTarget): z.input<typeof ZConfigTarget> {
  const headers = (t.headers as { name: string; value?: string; secret?: boolean }[]).map((h) =>
    h.secret ? { name: h.name, secret: true } : { name: h.name, value: h.value ?? "" },
  );
  const monitors = (t.monitors as Record<string, unknown>[]).map(({ id: _id, hasPassword: _p, ...config }) => config);
  return {
    name: t.name,
    kind: t.kind as z.infer<typeof ZConfigTarget>["kind"],
    baseUrl: t.baseUrl,
    ...(headers.length ? { headers } : {}),
    ...(monitors.length ? { monitors: monitors as z.input<typeof ZConfigTarget>["monitors"] } : {}),
    ...(t.configApplyUrl ? { configApplyUrl: t.configApplyUrl } : {}),
    ...(t.overheadStages.length ? { overheadStages: t.overheadStages } : {}),
    ...(t.agentLabel ? { location: `agent:${t.agentLabel}` } : {}),
  };
}

function instanceConfigDoc(c: StoredConfig): z.input<typeof ZConfigInstanceConfig> {
  return {
    name: c.name,
    ...(c.instanceType ? { instanceType: c.instanceType } : {}),
    ...(c.vcpu !== null ? { vcpu: c.vcpu } : {}),
    ...(c.memoryMb !== null ? { memoryMb: c.memoryMb } : {}),
    ...(c.cpuLimit !== null ? { cpuLimit: c.cpuLimit } : {}),
    replicas: c.replicas,
    ...(Object.keys(c.knobs ?? {}).length ? { knobs: c.knobs } : {}),
  };
}

function scenarioDoc(s: StoredScenario): z.input<typeof ZConfigScenario> {
  return {
    name: s.name,
    ...(s.description ? { description: s.description } : {}),
    spec: s.spec,
    ...(s.thresholds.length ? { thresholds: s.thresholds } : {}),
  };
}

async function current(ctx: ApplyContext, projectId: string | null) {
  if (projectId === null) return { targets: [], instanceConfigs: [], scenarios: [], thresholds: [] };
  const [targets, instanceConfigs, scenarios, thresholds] = await Promise.all([
    ctx.caller.target.list({ projectId }),
    ctx.caller.instanceConfig.list({ projectId }),
    ctx.caller.scenario.list({ projectId }),
    ctx.caller.trend.thresholds({ projectId }),
  ]);
  return { targets, instanceConfigs, scenarios, thresholds };
}

/** The project's configuration as a document (what `benchboard export` writes). */
export async function exportConfig(ctx: ApplyContext, project: { id: string; slug: string }) {
  const now = await current(ctx, project.id);
  return {
    version: CONFIG_DOCUMENT_VERSION,
    project: project.slug,
    thresholds: now.thresholds,
    targets: now.targets.map(targetDoc),
    instanceConfigs: now.instanceConfigs.map(instanceConfigDoc),
    scenarios: now.scenarios.map(scenarioDoc),
  };
}

/** A change to make, through a caller bound to the apply's transaction. */
type Step = (caller: Caller, projectId: string) => Promise<unknown>;

/**
 * Compare the document with the project and create and update what differs, all in one
 * transaction: the first refusal (an address rule, a cap, a limit) undoes everything before it
 * and names its item. `dryRun` makes every change the same way, so it meets the same checks, and
 * then rolls all of it back. `project.create` names a project to create first (the document's
 * slug was not found). Returns every item of the document with what was (or would be) done.
 */
export async function applyConfig(
  ctx: ApplyContext,
  project: { id: string } | { create: { name: string; slug: string } },
  doc: TConfigDocument,
  options: { dryRun: boolean },
): Promise<ConfigChange[]> {
  const existingId = "id" in project ? project.id : null;
  const projectId = existingId ?? "";
  const now = await current(ctx, existingId);
  const changes: ConfigChange[] = [];
  const steps: { change: ConfigChange; run: Step }[] = [];
  const plan = (change: ConfigChange, run?: Step) => {
    changes.push(change);
    if (run) steps.push({ change, run });
  };

  if (doc.thresholds !== undefined) {
    const fields = canonical(now.thresholds) === canonical(doc.thresholds) ? [] : ["thresholds"];
    const thresholds = doc.thresholds;
    plan(
      { kind: "thresholds", name: "project", action: fields.length ? "update" : "unchanged" },
      fields.length ? (caller, id) => caller.trend.setThresholds({ projectId: id, thresholds }) : undefined,
    );
  }

  for (const desired of doc.targets) {
    const stored = now.targets.find((t) => t.name === desired.name);
    const headers = desired.headers.map((h) => ({ name: h.name, value: h.value ?? null, secret: h.secret ?? false }));
    const input = {
      name: desired.name,
      kind: desired.kind,
      baseUrl: desired.baseUrl,
      headers: headers.map((h) => ({ ...h, from: h.secret ? h.name : null })),
      configApplyUrl: desired.configApplyUrl ?? null,
      overheadStages: desired.overheadStages,
      agentLabel: desired.location.startsWith("agent:") ? desired.location.slice("agent:".length) : null,
    };
    if (!stored) {
      plan({ kind: "target", name: desired.name, action: "create" }, (caller, id) =>
        caller.target.create({ ...input, projectId: id, monitors: desired.monitors.map((config) => ({ config })) }),
      );
      continue;
    }
    const storedDoc = ZConfigTarget.parse(targetDoc(stored));
    const fields = differingFields(
      { ...storedDoc, headers: storedDoc.headers.map((h) => ({ name: h.name, value: h.value, secret: h.secret })) },
      {
        ...desired,
        // A secret header given without a value keeps the stored one: compare names only.
        headers: desired.headers.map((h) => ({
          name: h.name,
          value: h.secret ? undefined : h.value,
          secret: h.secret || undefined,
        })),
      },
    );
    const givenSecrets = desired.headers.filter((h) => h.secret && h.value !== undefined);
    // A secret value given in the file is replaced, never compared with the stored one: an
    // "unchanged" answer would tell whoever guessed the secret right.
    if (givenSecrets.length && !fields.includes("headers")) fields.push("headers");
    const storedMonitors = stored.monitors as { id: string; kind: string }[];
    plan(
      {
        kind: "target",
        name: desired.name,
        action: fields.length ? "update" : "unchanged",
        ...(fields.length ? { fields } : {}),
      },
      fields.length
        ? (caller) =>
            caller.target.update({
              ...input,
              id: stored.id,
              // The monitor at the same place and of the same kind keeps its stored password.
              monitors: desired.monitors.map((config, i) => ({
                config,
                id: storedMonitors[i]?.kind === config.kind ? storedMonitors[i]!.id : null,
              })),
            })
        : undefined,
    );
  }

  for (const desired of doc.instanceConfigs) {
    const stored = now.instanceConfigs.find((c) => c.name === desired.name);
    if (!stored) {
      plan({ kind: "instanceConfig", name: desired.name, action: "create" }, (caller, id) =>
        caller.instanceConfig.create({ ...desired, projectId: id }),
      );
      continue;
    }
    const fields = differingFields(ZConfigInstanceConfig.parse(instanceConfigDoc(stored)), desired);
    plan(
      {
        kind: "instanceConfig",
        name: desired.name,
        action: fields.length ? "update" : "unchanged",
        ...(fields.length ? { fields } : {}),
      },
      fields.length ? (caller) => caller.instanceConfig.update({ ...desired, id: stored.id }) : undefined,
    );
  }

  for (const desired of doc.scenarios) {
    const stored = now.scenarios.find((s) => s.name === desired.name);
    if (!stored) {
      plan({ kind: "scenario", name: desired.name, action: "create" }, (caller, id) =>
        caller.scenario.create({ ...desired, projectId: id }),
      );
      continue;
    }
    const fields = differingFields(ZConfigScenario.parse(scenarioDoc(stored)), desired);
    plan(
      {
        kind: "scenario",
        name: desired.name,
        action: fields.length ? "update" : "unchanged",
        ...(fields.length ? { fields } : {}),
      },
      fields.length ? (caller) => caller.scenario.update({ ...desired, id: stored.id }) : undefined,
    );
  }

  const created = "create" in project ? project.create : null;
  if (created) changes.unshift({ kind: "project", name: created.slug, action: "create" });
  if (steps.length === 0 && !created) return changes;
  await inOneTransaction(
    ctx.db,
    async (tx) => {
      const caller = ctx.callerFor(tx);
      let id = projectId;
      if (created) {
        // With the file's slug exactly: the next apply of the same file finds it.
        id = (await caller.project.create({ name: created.name, slug: created.slug })).id;
      }
      // One at a time, in the document's order: the first refusal stops the rest, names its
      // item, and takes everything before it back with it.
      for (const { change, run } of steps) {
        try {
          await run(caller, id);
        } catch (err) {
          if (err instanceof Error) err.message = `${change.kind} "${change.name}": ${err.message}`;
          throw err;
        }
      }
    },
    { rollBack: options.dryRun },
  );
  return changes;
}
