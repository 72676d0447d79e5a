import { randomBytes } from "node:crypto";
import { isProbe, PROBE_MAX_REQUESTS, type TScenarioSpec } from "@benchboard/core";
import { canonicalOrigin } from "@benchboard/core/address";
import type { Db } from "../client";
import { ConflictError, NotFoundError } from "../errors";
import type { Prisma } from "../generated/prisma/client";
import { isInstallOrganization } from "./org";

type Tx = Db | Prisma.TransactionClient;

/** The organization's verification token, made on first use. It is not a secret: it is published. */
export async function getVerificationToken(db: Db, orgId: string): Promise<string> {
  const org = await db.organization.findUnique({ where: { id: orgId }, select: { verificationToken: true } });
  if (!org) throw new NotFoundError("orgId", "organization not found");
  if (org.verificationToken) return org.verificationToken;
  const token = randomBytes(18).toString("base64url");
  // Two first uses at once: the one that wrote first wins, and both read it back.
  await db.organization.updateMany({
    where: { id: orgId, verificationToken: null },
    data: { verificationToken: token },
  });
  const again = await db.organization.findUniqueOrThrow({ where: { id: orgId }, select: { verificationToken: true } });
  return again.verificationToken!;
}

export async function recordVerifiedOrigin(db: Db, orgId: string, origin: string, method: "http" | "dns") {
  return db.verifiedOrigin.upsert({
    where: { orgId_origin: { orgId, origin } },
    update: { method, verifiedAt: new Date() },
    create: { orgId, origin, method },
  });
}

/**
 * Where an organization stands with the origin of a URL: trusted (the install's own
 * organization), verified (and how), or not yet.
 */
export async function originStatus(db: Tx, orgId: string, url: string) {
  const origin = canonicalOrigin(url);
  if (!origin) return { origin: null, trusted: false, verified: null };
  const [trusted, verified] = await Promise.all([
    isInstallOrganization(db, orgId),
    db.verifiedOrigin.findUnique({
      where: { orgId_origin: { orgId, origin } },
      select: { method: true, verifiedAt: true },
    }),
  ]);
  return { origin, trusted, verified };
}

/**
 * Load reaches only origins the organization proved it controls. Until then a probe (at most
 * PROBE_MAX_REQUESTS requests) may reach it, to see that it answers. The install's own
 * organization is trusted by the operator and needs no proof.
 */
export async function assertLoadMayReach(
  db: Tx,
  orgId: string,
  url: string,
  spec: TScenarioSpec | null,
  field = "targetId",
): Promise<void> {
  const status = await originStatus(db, orgId, url);
  if (!status.origin) throw new ConflictError(field, "the target's URL is not an http(s) or ws(s) URL");
  if (status.trusted || status.verified) return;
  if (spec && isProbe(spec)) return;
  throw new ConflictError(
    field,
    `${status.origin} is not verified for this organization: publish the verification token (see the target's page), or run a probe of at most ${PROBE_MAX_REQUESTS} requests`,
  );
}

/**
 * May requests that are not load (monitor samples, "test connection", the instance-config PUT)
 * go to this URL for the organization? Only to what it proved it controls: a verified origin, or
 * any port of a host verified by DNS. The install's own organization is trusted.
 */
export async function requestsMayReach(db: Tx, orgId: string, url: string): Promise<boolean> {
  const status = await originStatus(db, orgId, url);
  if (!status.origin) return false;
  if (status.trusted || status.verified) return true;
  const host = new URL(status.origin).hostname;
  const byDns = await db.verifiedOrigin.findMany({ where: { orgId, method: "dns" }, select: { origin: true } });
  return byDns.some((v) => new URL(v.origin).hostname === host);
}

export const UNVERIFIED_REQUEST_MESSAGE =
  "is not on an origin this organization has verified; verify it on the target's page first";
