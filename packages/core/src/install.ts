import { z } from "zod";
import { type AllowList, allowListText, parseAllowList } from "./address";
import { SELF_SERVE_CAPS, type TOrgCaps, ZOrgCaps, ZOrgCapsPatch } from "./caps";
import type { TScenarioSpec } from "./scenario";

/**
 * Install-wide settings: decided by the operator (who runs the install and owns its first
 * organization), never by a tenant. The environment gives the defaults; edits the operator makes
 * on the Settings page are stored and win over them.
 */
export interface InstallSettings {
  /** Private ranges and hosts the install's own organization may target (CIDRs, addresses, host:port). */
  allowedTargets: AllowList;
  /**
   * Entries the operator ticked "tenants may target": the only private addresses any other
   * organization may reach. Empty by default: the operator's services stay the operator's.
   */
  tenantTargets: AllowList;
  /** How long an origin verification lasts before it must be proved again. */
  verificationDays: number;
  /**
   * Whether a DNS TXT verification of a host covers the host's other ports for requests that are
   * not load (monitors, test connection, config apply). Off by default: a DNS record covers only
   * the port it was verified for.
   */
  dnsCoversAllPorts: boolean;
  /**
   * The one-time token the install's first account (the operator) must give to sign up; null when
   * none is configured. Keeps a page that reaches a fresh install from creating the operator.
   */
  setupToken: string | null;
  /** Whether anyone may create an account (the install's first account can always be created). */
  signupOpen: boolean;
  /** Caps a new organization starts with. */
  defaultCaps: TOrgCaps;
}

export const ZAllowedTargetsText = z
  .array(z.string().trim().min(1).max(300, "an entry is at most 300 characters"))
  .max(200, "at most 200 entries")
  .superRefine((items, ctx) => {
    items.forEach((item, i) => {
      const { errors } = parseAllowList([item]);
      if (errors[0]) ctx.addIssue({ code: "custom", path: [i], message: errors[0] });
    });
  });

/** What the operator page edits; absent keys keep the environment's value. */
export const ZInstallSettingsInput = z.object({
  allowedTargets: ZAllowedTargetsText.optional(),
  tenantTargets: ZAllowedTargetsText.optional(),
  signupOpen: z.boolean().optional(),
  defaultCaps: ZOrgCapsPatch.optional(),
});
export type TInstallSettingsInput = z.infer<typeof ZInstallSettingsInput>;

const ZEnvCap = (max: number) => z.coerce.number().positive().max(max).optional();

/** The install's environment variables, as every process reads them. */
export const ZInstallEnv = z.object({
  /** Comma- or space-separated CIDRs, addresses and host:port, e.g. `127.0.0.1/32, 10.0.0.0/8, db.internal:5432`. */
  BENCHBOARD_ALLOWED_TARGETS: z.string().default(""),
  /** Entries tenants (every organization but the install's own) may target too; empty by default. */
  BENCHBOARD_TENANT_TARGETS: z.string().default(""),
  /** Days an origin verification lasts (7 by default). */
  BENCHBOARD_VERIFICATION_DAYS: z.coerce.number().int().min(1).max(365).default(7),
  /** `true` lets a DNS TXT verification cover every port of its host (not load); `false` by default. */
  BENCHBOARD_DNS_ALL_PORTS: z.enum(["true", "false", ""], { error: "use true or false" }).default("false"),
  /** The first account's setup token (scripts/up.sh makes one and prints the sign-up link). */
  BENCHBOARD_SETUP_TOKEN: z
    .string()
    .trim()
    .optional()
    .refine((v) => !v || v.length >= 16, "at least 16 characters"),
  /** `open` (default) lets anyone sign up; `closed` allows only invitations and the first account. */
  BENCHBOARD_SIGNUP: z.enum(["open", "closed"]).default("open"),
  BENCHBOARD_DEFAULT_MAX_RATE: ZEnvCap(100_000),
  BENCHBOARD_DEFAULT_MAX_CONNECTIONS: ZEnvCap(10_000),
  BENCHBOARD_DEFAULT_MAX_DURATION_S: ZEnvCap(3_600),
  BENCHBOARD_DEFAULT_MAX_CONCURRENT_RUNS: ZEnvCap(1_000),
  BENCHBOARD_DEFAULT_MAX_WORKER_SLOTS: ZEnvCap(10_000),
});
export type TInstallEnv = z.infer<typeof ZInstallEnv>;

export class InstallEnvError extends Error {
  override name = "InstallEnvError";
}

/** Install settings from the environment; a bad entry is an error naming the variable. */
export function installSettingsFromEnv(env: Record<string, string | undefined>): InstallSettings {
  const parsed = ZInstallEnv.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InstallEnvError(`${issue?.path.join(".")}: ${issue?.message}`);
  }
  const e = parsed.data;
  const { list, errors } = parseAllowList(e.BENCHBOARD_ALLOWED_TARGETS);
  if (errors.length) throw new InstallEnvError(`BENCHBOARD_ALLOWED_TARGETS: ${errors.join("; ")}`);
  const tenant = parseAllowList(e.BENCHBOARD_TENANT_TARGETS);
  if (tenant.errors.length) throw new InstallEnvError(`BENCHBOARD_TENANT_TARGETS: ${tenant.errors.join("; ")}`);
  const caps = ZOrgCaps.parse({
    maxRate: e.BENCHBOARD_DEFAULT_MAX_RATE ?? SELF_SERVE_CAPS.maxRate,
    maxConnections: e.BENCHBOARD_DEFAULT_MAX_CONNECTIONS ?? SELF_SERVE_CAPS.maxConnections,
    maxDurationS: e.BENCHBOARD_DEFAULT_MAX_DURATION_S ?? SELF_SERVE_CAPS.maxDurationS,
    maxConcurrentRuns: e.BENCHBOARD_DEFAULT_MAX_CONCURRENT_RUNS ?? SELF_SERVE_CAPS.maxConcurrentRuns,
    maxWorkerSlots: e.BENCHBOARD_DEFAULT_MAX_WORKER_SLOTS ?? SELF_SERVE_CAPS.maxWorkerSlots,
  });
  return {
    allowedTargets: list,
    tenantTargets: tenant.list,
    verificationDays: e.BENCHBOARD_VERIFICATION_DAYS,
    dnsCoversAllPorts: e.BENCHBOARD_DNS_ALL_PORTS === "true",
    setupToken: e.BENCHBOARD_SETUP_TOKEN || null,
    signupOpen: e.BENCHBOARD_SIGNUP === "open",
    defaultCaps: caps,
  };
}

/** Settings with nothing configured: no private targets, open sign-up, self-serve caps. */
export const DEFAULT_INSTALL_SETTINGS: InstallSettings = installSettingsFromEnv({});

/** The environment's settings with the operator's stored edits laid over them. */
export function mergeInstallSettings(
  fromEnv: InstallSettings,
  stored: {
    allowedTargets?: string[] | null;
    tenantTargets?: string[] | null;
    signupOpen?: boolean | null;
    defaultCaps?: unknown;
  } | null,
): InstallSettings {
  if (!stored) return fromEnv;
  const caps = ZOrgCapsPatch.safeParse(stored.defaultCaps ?? {});
  return {
    ...fromEnv,
    allowedTargets: stored.allowedTargets ? parseAllowList(stored.allowedTargets).list : fromEnv.allowedTargets,
    tenantTargets: stored.tenantTargets ? parseAllowList(stored.tenantTargets).list : fromEnv.tenantTargets,
    signupOpen: stored.signupOpen ?? fromEnv.signupOpen,
    defaultCaps: { ...fromEnv.defaultCaps, ...(caps.success ? stripUndefined(caps.data) : {}) },
  };
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Settings as the operator page and API show them (the allow-list as text). */
export function publicInstallSettings(settings: InstallSettings) {
  return {
    allowedTargets: allowListText(settings.allowedTargets),
    tenantTargets: allowListText(settings.tenantTargets),
    verificationDays: settings.verificationDays,
    signupOpen: settings.signupOpen,
    defaultCaps: settings.defaultCaps,
  };
}

/**
 * The addresses an organization's requests (load, monitors, config hooks, webhooks, test
 * connections) may reach beyond public ones. The install's own organization gets the operator's
 * whole allow-list; every other organization only the entries open to tenants, judged with the
 * tenant rule for names (see `AllowList.scope`).
 */
export function allowListForOrg(settings: InstallSettings, installOrg: boolean): AllowList {
  if (installOrg) {
    const entries = [...settings.allowedTargets.entries];
    for (const e of settings.tenantTargets.entries) if (!entries.some((x) => x.text === e.text)) entries.push(e);
    return { entries, scope: "install" };
  }
  return { entries: settings.tenantTargets.entries, scope: "tenant" };
}

/** Requests an unverified origin may receive: enough to see it answers, not enough to load it. */
export const PROBE_MAX_REQUESTS = 10;
/** A probe's fixed pace: a slow trickle whatever the organization's caps allow. */
export const PROBE_RATE_PER_S = 5;

type ClosedSpec = Extract<TScenarioSpec, { engine: "http-closed" }>;

/**
 * Whether a scenario asks for nothing more than a probe: a closed-model run of at most 10 GET or
 * HEAD requests to the origin's root, one at a time, without a plan, custom headers or a body.
 * Launched once (one shard, one repetition), it may reach an origin the organization has not
 * verified; the worker then runs `probeSpec`, never the stored spec.
 */
export function isProbe(spec: TScenarioSpec): boolean {
  if (spec.engine !== "http-closed" || spec.requests === undefined) return false;
  if (spec.requests > PROBE_MAX_REQUESTS || spec.concurrency !== 1) return false;
  if (spec.plan && spec.plan.length > 0) return false;
  const r = spec.request;
  return (
    (r.method === "GET" || r.method === "HEAD") &&
    r.path === "/" &&
    Object.keys(r.headers).length === 0 &&
    r.body === undefined
  );
}

/** Why a launch cannot be a probe, or null when it can: every way to multiply a probe is refused. */
export function probeRefusal(spec: TScenarioSpec | null, launch: { shards: number; runs: number }): string | null {
  if (!spec || !isProbe(spec)) {
    return `a probe is at most ${PROBE_MAX_REQUESTS} GET or HEAD requests to the origin's root, one at a time, without a plan, headers or body`;
  }
  if (launch.shards > 1) return "a probe runs as one shard";
  if (launch.runs > 1) return "a probe is launched once (no repetitions or sweeps)";
  return null;
}

/**
 * The spec a worker runs for a probe, built from nothing but the request count and method: the
 * stored spec's plan, items, headers, body and path never reach an unverified origin.
 */
export function probeSpec(spec: TScenarioSpec): ClosedSpec {
  const requested = spec.engine === "http-closed" && spec.requests !== undefined ? spec.requests : 1;
  const method = spec.engine === "http-closed" && spec.request.method === "HEAD" ? "HEAD" : "GET";
  return {
    engine: "http-closed",
    request: { method, path: "/", headers: {} },
    concurrency: 1,
    requests: Math.max(1, Math.min(PROBE_MAX_REQUESTS, requested)),
    rampUpS: 0,
    timeoutMs: 10_000,
  };
}

/** Where the HTTP verification token is served, relative to the origin. */
export const VERIFICATION_PATH = "/.well-known/benchboard-verification.txt";
/** DNS TXT records are looked up at this label under the origin's host name. */
export const VERIFICATION_DNS_LABEL = "_benchboard-verification";

/** The TXT record value (and the HTTP file's content) proving an organization owns an origin. */
export function verificationRecord(token: string): string {
  return `benchboard-verification=${token}`;
}
