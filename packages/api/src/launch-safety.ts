import { ConflictError, type Db } from "@benchboard/db";
import { assessUrl } from "@benchboard/loadgen/target-safety";

export interface TargetUrls {
  baseUrl: string;
  configApplyUrl?: string | null;
  monitors?: { url?: string }[];
}

/**
 * Refuse targets (and their monitor / config-apply URLs) that point at link-local or cloud
 * metadata addresses, unless the organization's owner allowed them. A load tester or a "test
 * connection" button aimed at 169.254.169.254 would otherwise read cloud credentials.
 */
export async function assertTargetAllowed(db: Db, orgId: string, urls: TargetUrls): Promise<void> {
  const org = await db.organization.findUnique({ where: { id: orgId }, select: { allowPrivateTargets: true } });
  if (org?.allowPrivateTargets) return;
  const checks: [string, string][] = [["baseUrl", urls.baseUrl]];
  if (urls.configApplyUrl) checks.push(["configApplyUrl", urls.configApplyUrl]);
  urls.monitors?.forEach((m, i) => {
    if (m.url) checks.push([`monitors.${i}.url`, m.url]);
  });
  for (const [field, url] of checks) {
    const verdict = await assessUrl(url);
    if (!verdict.allowed)
      throw new ConflictError(field, `${verdict.reason}; an owner can allow such targets in Settings`);
  }
}
