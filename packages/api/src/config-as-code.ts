import { ZEmailRecipients, ZMonitorConfig, ZNotificationEventKind, ZOverheadStages } from "@benchboard/core";
import { ConflictError, type Db, inOneTransaction, type storedSecretHeaderValues } from "@benchboard/db";
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

// The notification section's JSON Schema states exactly what is taken (the OpenAPI document is
// generated from it): text that must hold a visible character says so with a pattern, not a trim.
const nonBlank = (max: number, message = "must hold a character other than white space") =>
  z
    .string()
    .max(max, `at most ${max} characters`)
    .regex(/[^\s\uFEFF]/, message)
    .transform((text) => text.trim());

/**
 * A notification endpoint, by name (endpoints belong to the organization, so every project's file
 * names the same ones). Its URL and a webhook's secret are credentials: never exported, given from
 * the environment (`url: ${SLACK_URL}`), and left as stored when the file omits them.
 */
const ZConfigReceiverUrl = z
  .string()
  .max(2_000, "at most 2,000 characters")
  .regex(/^[hH][tT][tT][pP][sS]?:\/\//, "the receiver must be an http:// or https:// URL");
const endpointFields = { name: nonBlank(80, "name is required"), enabled: z.boolean().default(true) };

/** One shape per channel, so the document states which fields each takes. */
export const ZConfigNotificationEndpoint = z.discriminatedUnion("channel", [
  z.strictObject({
    ...endpointFields,
    channel: z.literal("webhook"),
    url: ZConfigReceiverUrl.optional(),
    secret: z
      .string()
      .regex(/^whsec_[A-Za-z0-9+/]{32,86}={0,2}$/, "must be whsec_ followed by 24 to 64 bytes in base64")
      .optional(),
  }),
  z.strictObject({ ...endpointFields, channel: z.enum(["slack", "teams"]), url: ZConfigReceiverUrl.optional() }),
  /** Members' addresses: not secret, so exported. */
  z.strictObject({ ...endpointFields, channel: z.literal("email"), recipients: ZEmailRecipients.optional() }),
]);

/** A rule of this project: which events (of one scenario, or all) go to which endpoints, by name. */
export const ZConfigNotificationRule = z.strictObject({
  name: nonBlank(80, "name is required"),
  /** Repeats count once. */
  events: z
    .array(ZNotificationEventKind)
    .min(1, "choose at least one event")
    .max(20)
    .transform((e) => [...new Set(e)]),
  /** A scenario of this project, by name; without it, the whole project. */
  scenario: nonBlank(200).optional(),
  endpoints: z
    .array(nonBlank(80))
    .min(1, "name at least one endpoint")
    .max(20)
    .transform((e) => [...new Set(e)]),
  baselineBranch: nonBlank(200, "name the baseline branch").default("main"),
  tolerancePct: z.number().min(0).max(1000).default(5),
  enabled: z.boolean().default(true),
});

/** Names that appear twice are refused when the section is applied (409, naming the second). */
export const ZConfigNotifications = z.strictObject({
  endpoints: z.array(ZConfigNotificationEndpoint).max(50).default([]),
  rules: z.array(ZConfigNotificationRule).max(100).default([]),
});

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
  notifications: ZConfigNotifications.optional(),
});
export type TConfigDocument = z.infer<typeof ZConfigDocument>;

/**
 * One line of an apply's plan. `project` is the project the document creates (it comes first);
 * `thresholds` the project's thresholds (named `project`).
 */
export const ZConfigChange = z.object({
  kind: z.enum([
    "project",
    "thresholds",
    "target",
    "instanceConfig",
    "scenario",
    "notificationEndpoint",
    "notificationRule",
  ]),
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
  /**
   * The caller may act on one project only (an API token limited to it): it may keep the
   * project's notification rules, naming endpoints that exist, but not create or change an
   * endpoint, which every project's rules may send to.
   */
  projectLimited?: boolean;
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

type StoredEndpoint = Awaited<ReturnType<Caller["notification"]["endpoints"]>>[number];
type StoredRule = Awaited<ReturnType<Caller["notification"]["rules"]>>[number];

async function current(ctx: ApplyContext, projectId: string | null) {
  const endpoints = await ctx.caller.notification.endpoints();
  if (projectId === null) {
    return { targets: [], instanceConfigs: [], scenarios: [], thresholds: [], endpoints, rules: [] as StoredRule[] };
  }
  const [targets, instanceConfigs, scenarios, thresholds, rules] = await Promise.all([
    ctx.caller.target.list({ projectId }),
    ctx.caller.instanceConfig.list({ projectId }),
    ctx.caller.scenario.list({ projectId }),
    ctx.caller.trend.thresholds({ projectId }),
    ctx.caller.notification.rules(),
  ]);
  return {
    targets,
    instanceConfigs,
    scenarios,
    thresholds,
    endpoints,
    rules: rules.filter((r) => r.projectId === projectId),
  };
}

/** A project's rule as the file says it: endpoints and scenario by name. */
function ruleDoc(
  rule: StoredRule,
  endpoints: StoredEndpoint[],
  scenarios: { id: string; name: string }[],
): z.input<typeof ZConfigNotificationRule> {
  const scenario = rule.scenarioId ? scenarios.find((s) => s.id === rule.scenarioId)?.name : undefined;
  return {
    name: rule.name,
    events: rule.events as z.input<typeof ZConfigNotificationRule>["events"],
    ...(scenario ? { scenario } : {}),
    endpoints: rule.endpointIds.map((id) => endpoints.find((e) => e.id === id)?.name ?? id),
    baselineBranch: rule.baselineBranch,
    tolerancePct: rule.tolerancePct,
    ...(rule.enabled ? {} : { enabled: false }),
  };
}

/** The endpoints the project's rules send to, without their URLs or secrets. */
function notificationsDoc(now: Awaited<ReturnType<typeof current>>) {
  if (!now.rules.length) return undefined;
  const used = new Set(now.rules.flatMap((r) => r.endpointIds));
  return {
    endpoints: now.endpoints
      .filter((e) => used.has(e.id))
      .map((e) => ({
        name: e.name,
        channel: e.channel,
        ...(e.channel === "email" ? { recipients: e.recipients } : {}),
        ...(e.enabled ? {} : { enabled: false }),
      })),
    rules: now.rules.map((r) => ruleDoc(r, now.endpoints, now.scenarios)),
  };
}

/** The project's configuration as a document (what `benchboard export` writes). */
export async function exportConfig(ctx: ApplyContext, project: { id: string; slug: string }) {
  const now = await current(ctx, project.id);
  const notifications = notificationsDoc(now);
  return {
    version: CONFIG_DOCUMENT_VERSION,
    project: project.slug,
    thresholds: now.thresholds,
    targets: now.targets.map(targetDoc),
    instanceConfigs: now.instanceConfigs.map(instanceConfigDoc),
    scenarios: now.scenarios.map(scenarioDoc),
    ...(notifications ? { notifications } : {}),
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

  if (doc.notifications) planNotifications(doc.notifications, now, plan, ctx.projectLimited ?? false);

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

type Plan = (change: ConfigChange, run?: Step) => void;

/** The one endpoint of the organization with this name (names are how files refer to them). */
function endpointNamed(endpoints: StoredEndpoint[], name: string, field: string): StoredEndpoint | undefined {
  const found = endpoints.filter((e) => e.name === name);
  if (found.length > 1) {
    throw new ConflictError(
      field,
      `${found.length} notification endpoints are named "${name}"; rename all but one (Settings → Notifications) so the file can name it`,
    );
  }
  return found[0];
}

/**
 * Endpoints first (so rules can name them), then the project's rules. A stored endpoint's URL and
 * secret are never compared: a URL or secret in the file is written again (an "unchanged" would
 * tell whoever guessed a credential right), and one the file leaves out stays as stored.
 */
function planNotifications(
  doc: z.infer<typeof ZConfigNotifications>,
  now: Awaited<ReturnType<typeof current>>,
  plan: Plan,
  projectLimited: boolean,
) {
  const limited = (field: string, name: string) =>
    new ConflictError(
      field,
      `endpoint "${name}" belongs to the whole organization: this API token is limited to one project, so it may name the endpoint in rules but not create or change it`,
    );
  for (const [section, items] of [
    ["endpoints", doc.endpoints],
    ["rules", doc.rules],
  ] as const) {
    const seen = new Set<string>();
    items.forEach((item, i) => {
      if (seen.has(item.name)) {
        throw new ConflictError(`notifications.${section}.${i}.name`, `"${item.name}" appears twice in the file`);
      }
      seen.add(item.name);
    });
  }
  doc.endpoints.forEach((desired, i) => {
    const field = `notifications.endpoints.${i}`;
    // What this channel's shape may carry.
    const given: { url?: string; recipients?: string[]; secret?: string } = desired;
    const stored = endpointNamed(now.endpoints, desired.name, `${field}.name`);
    if (!stored && projectLimited) throw limited(`${field}.name`, desired.name);
    if (!stored) {
      const url = given.url;
      if (desired.channel === "email" && !given.recipients) {
        throw new ConflictError(
          `${field}.recipients`,
          `email endpoint "${desired.name}" does not exist yet: give its recipients (members' addresses)`,
        );
      }
      if (!url && desired.channel !== "email") {
        throw new ConflictError(
          `${field}.url`,
          `endpoint "${desired.name}" does not exist yet: give its receiver URL, from the environment (url: \${ALERTS_URL})`,
        );
      }
      plan({ kind: "notificationEndpoint", name: desired.name, action: "create" }, async (caller) => {
        const { endpoint } = await caller.notification.createEndpoint({
          name: desired.name,
          channel: desired.channel,
          ...(url ? { url } : {}),
          ...(given.recipients ? { recipients: given.recipients } : {}),
          ...(given.secret ? { secret: given.secret } : {}),
        });
        if (!desired.enabled) await caller.notification.setEnabled({ id: endpoint.id, enabled: false });
      });
      return;
    }
    if (stored.channel !== desired.channel) {
      throw new ConflictError(
        `${field}.channel`,
        `endpoint "${desired.name}" is a ${stored.channel} endpoint; a channel cannot change (delete it, or use another name)`,
      );
    }
    const sameRecipients =
      given.recipients === undefined || [...given.recipients].sort().join() === [...stored.recipients].sort().join();
    const fields = [
      ...(given.url !== undefined ? ["url"] : []),
      ...(sameRecipients ? [] : ["recipients"]),
      ...(given.secret !== undefined ? ["secret"] : []),
      ...(desired.enabled !== stored.enabled ? ["enabled"] : []),
    ];
    if (fields.length && projectLimited) throw limited(`${field}.${fields[0]}`, desired.name);
    plan(
      {
        kind: "notificationEndpoint",
        name: desired.name,
        action: fields.length ? "update" : "unchanged",
        ...(fields.length ? { fields } : {}),
      },
      fields.length
        ? (caller) =>
            caller.notification.updateEndpoint({
              id: stored.id,
              ...(given.url !== undefined ? { url: given.url } : {}),
              ...(sameRecipients ? {} : { recipients: given.recipients }),
              ...(given.secret !== undefined ? { secret: given.secret } : {}),
              ...(desired.enabled !== stored.enabled ? { enabled: desired.enabled } : {}),
            })
        : undefined,
    );
  });

  const declared = new Set(doc.endpoints.map((e) => e.name));
  doc.rules.forEach((desired, i) => {
    const field = `notifications.rules.${i}`;
    desired.endpoints.forEach((name, j) => {
      if (!declared.has(name) && !endpointNamed(now.endpoints, name, `${field}.endpoints.${j}`)) {
        throw new ConflictError(
          `${field}.endpoints.${j}`,
          `no notification endpoint "${name}": add it under notifications.endpoints, or in Settings → Notifications`,
        );
      }
    });
    // What the rule is, with names resolved inside the apply's transaction (so endpoints and
    // scenarios the same file creates are found).
    const input = async (caller: Caller, projectId: string) => {
      const [endpoints, scenarios] = await Promise.all([
        caller.notification.endpoints(),
        caller.scenario.list({ projectId }),
      ]);
      let scenarioId: string | null = null;
      if (desired.scenario) {
        const scenario = scenarios.find((s) => s.name === desired.scenario);
        if (!scenario) throw new ConflictError(`${field}.scenario`, `no scenario "${desired.scenario}" in the project`);
        scenarioId = scenario.id;
      }
      return {
        name: desired.name,
        events: desired.events,
        projectId,
        scenarioId,
        endpointIds: desired.endpoints.map((name, j) => endpointNamed(endpoints, name, `${field}.endpoints.${j}`)!.id),
        baselineBranch: desired.baselineBranch,
        tolerancePct: desired.tolerancePct,
      };
    };
    const stored = now.rules.filter((r) => r.name === desired.name);
    if (stored.length > 1) {
      throw new ConflictError(
        `${field}.name`,
        `${stored.length} rules of the project are named "${desired.name}"; rename all but one so the file can name it`,
      );
    }
    const rule = stored[0];
    if (!rule) {
      plan({ kind: "notificationRule", name: desired.name, action: "create" }, async (caller, projectId) => {
        const { id } = await caller.notification.createRule(await input(caller, projectId));
        if (!desired.enabled) await caller.notification.updateRule({ id, enabled: false });
      });
      return;
    }
    const storedDoc = ZConfigNotificationRule.parse(ruleDoc(rule, now.endpoints, now.scenarios));
    const sorted = (r: z.infer<typeof ZConfigNotificationRule>) => ({
      ...r,
      events: [...r.events].sort(),
      endpoints: [...r.endpoints].sort(),
    });
    const fields = differingFields(sorted(storedDoc), sorted(desired));
    plan(
      {
        kind: "notificationRule",
        name: desired.name,
        action: fields.length ? "update" : "unchanged",
        ...(fields.length ? { fields } : {}),
      },
      fields.length
        ? async (caller, projectId) =>
            caller.notification.updateRule({
              id: rule.id,
              ...(await input(caller, projectId)),
              enabled: desired.enabled,
            })
        : undefined,
    );
  });
}
