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
  /** Private ranges and hosts that may be targets (CIDRs, addresses, host:port). */
  allowedTargets: AllowList;
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
  signupOpen: z.boolean().optional(),
  defaultCaps: ZOrgCapsPatch.optional(),
});
export type TInstallSettingsInput = z.infer<typeof ZInstallSettingsInput>;

const ZEnvCap = (max: number) => z.coerce.number().positive().max(max).optional();

/** The install's environment variables, as every process reads them. */
export const ZInstallEnv = z.object({
  /** Comma- or space-separated CIDRs, addresses and host:port, e.g. `127.0.0.1/32, 10.0.0.0/8, db.internal:5432`. */
  BENCHBOARD_ALLOWED_TARGETS: z.string().default(""),
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
  const caps = ZOrgCaps.parse({
    maxRate: e.BENCHBOARD_DEFAULT_MAX_RATE ?? SELF_SERVE_CAPS.maxRate,
    maxConnections: e.BENCHBOARD_DEFAULT_MAX_CONNECTIONS ?? SELF_SERVE_CAPS.maxConnections,
    maxDurationS: e.BENCHBOARD_DEFAULT_MAX_DURATION_S ?? SELF_SERVE_CAPS.maxDurationS,
    maxConcurrentRuns: e.BENCHBOARD_DEFAULT_MAX_CONCURRENT_RUNS ?? SELF_SERVE_CAPS.maxConcurrentRuns,
    maxWorkerSlots: e.BENCHBOARD_DEFAULT_MAX_WORKER_SLOTS ?? SELF_SERVE_CAPS.maxWorkerSlots,
  });
  return { allowedTargets: list, signupOpen: e.BENCHBOARD_SIGNUP === "open", defaultCaps: caps };
}

/** Settings with nothing configured: no private targets, open sign-up, self-serve caps. */
export const DEFAULT_INSTALL_SETTINGS: InstallSettings = installSettingsFromEnv({});

/** The environment's settings with the operator's stored edits laid over them. */
export function mergeInstallSettings(
  fromEnv: InstallSettings,
  stored: { allowedTargets?: string[] | null; signupOpen?: boolean | null; defaultCaps?: unknown } | null,
): InstallSettings {
  if (!stored) return fromEnv;
  const caps = ZOrgCapsPatch.safeParse(stored.defaultCaps ?? {});
  return {
    allowedTargets: stored.allowedTargets ? parseAllowList(stored.allowedTargets).list : fromEnv.allowedTargets,
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
    signupOpen: settings.signupOpen,
    defaultCaps: settings.defaultCaps,
  };
}

/** Requests an unverified origin may receive: enough to see it answers, not enough to load it. */
export const PROBE_MAX_REQUESTS = 10;

/**
 * Whether a scenario is a probe: a closed-model run of at most 10 requests in total, which may
 * reach an origin its organization has not verified yet.
 */
export function isProbe(spec: TScenarioSpec): boolean {
  if (spec.engine !== "http-closed" || spec.requests === undefined) return false;
  const steps = spec.plan?.length ?? 1;
  return spec.requests * steps <= PROBE_MAX_REQUESTS;
}

/** Where the HTTP verification token is served, relative to the origin. */
export const VERIFICATION_PATH = "/.well-known/benchboard-verification.txt";
/** DNS TXT records are looked up at this label under the origin's host name. */
export const VERIFICATION_DNS_LABEL = "_benchboard-verification";

/** The TXT record value (and the HTTP file's content) proving an organization owns an origin. */
export function verificationRecord(token: string): string {
  return `benchboard-verification=${token}`;
}
