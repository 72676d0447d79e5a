import { allowListForOrg, DEFAULT_INSTALL_SETTINGS, type InstallSettings } from "@benchboard/core";
import { ConflictError, type Db, getInstallSettings, isInstallOrganization } from "@benchboard/db";
import { assessUrl, type Resolve, type SafetyPolicy } from "@benchboard/loadgen/target-safety";

export interface TargetUrls {
  baseUrl: string;
  configApplyUrl?: string | null;
  monitors?: { url?: string }[];
}

/** Name resolution the server uses; tests give their own DNS server. */
export interface NetworkDeps {
  /** Address lookup for targets (A/AAAA). */
  lookup?: Resolve;
  /** TXT lookup for origin verification. */
  resolveTxt?: (name: string) => Promise<string[][]>;
}

/** The install's settings (environment defaults with the operator's edits) for a request. */
export function installSettingsFor(ctx: { db: Db; install?: InstallSettings | null }): Promise<InstallSettings> {
  return getInstallSettings(ctx.db, ctx.install ?? DEFAULT_INSTALL_SETTINGS);
}

/**
 * Where requests made for this request's organization may go: the operator's whole allow-list
 * for the install's own organization, only the entries opened to tenants for any other.
 */
export async function safetyPolicyFor(ctx: {
  db: Db;
  orgId?: string | null;
  install?: InstallSettings | null;
  network?: NetworkDeps | null;
}): Promise<SafetyPolicy> {
  const settings = await installSettingsFor(ctx);
  const installOrg = ctx.orgId ? await isInstallOrganization(ctx.db, ctx.orgId) : false;
  return { allowList: allowListForOrg(settings, installOrg), resolve: ctx.network?.lookup };
}

/**
 * Refuse targets (and their monitor / config-apply URLs) that resolve to metadata, link-local or
 * unspecified addresses (always), to private addresses the operator has not allowed, or that do
 * not resolve. No organization setting widens this: only the operator's allow-list does.
 */
export async function assertTargetAllowed(policy: SafetyPolicy, urls: TargetUrls): Promise<void> {
  const checks: [string, string][] = urls.baseUrl ? [["baseUrl", urls.baseUrl]] : [];
  if (urls.configApplyUrl) checks.push(["configApplyUrl", urls.configApplyUrl]);
  urls.monitors?.forEach((m, i) => {
    if (m.url) checks.push([`monitors.${i}.url`, m.url]);
  });
  for (const [field, url] of checks) {
    const verdict = await assessUrl(url, policy);
    if (!verdict.allowed) throw new ConflictError(field, verdict.reason);
  }
}
