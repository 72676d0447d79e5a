import { randomBytes } from "node:crypto";
import { probeRefusal, type TScenarioSpec } from "@benchboard/core";
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

const DAY_MS = 86_400_000;

/**
 * Record that an origin published the organization's token. Over HTTP the addresses the token was
 * served from are kept: load goes only there. Every verification lasts `days` days.
 */
export async function recordVerifiedOrigin(
  db: Db,
  orgId: string,
  origin: string,
  method: "http" | "dns",
  options: { addresses?: string[]; days?: number; now?: Date } = {},
) {
  const now = options.now ?? new Date();
  const data = {
    method,
    verifiedAt: now,
    addresses: method === "http" ? (options.addresses ?? []) : [],
    expiresAt: new Date(now.getTime() + (options.days ?? 7) * DAY_MS),
  };
  return db.verifiedOrigin.upsert({
    where: { orgId_origin: { orgId, origin } },
    update: data,
    create: { orgId, origin, ...data },
  });
}

/**
 * Where an organization stands with the origin of a URL: trusted (the install's own
 * organization), verified (how, where, until when), or not yet. An expired verification counts
 * as none.
 */
export async function originStatus(db: Tx, orgId: string, url: string, now = new Date()) {
  const origin = canonicalOrigin(url);
  if (!origin) return { origin: null, trusted: false, verified: null, expired: null };
  const [trusted, row] = await Promise.all([
    isInstallOrganization(db, orgId),
    db.verifiedOrigin.findUnique({
      where: { orgId_origin: { orgId, origin } },
      select: { method: true, verifiedAt: true, addresses: true, expiresAt: true },
    }),
  ]);
  const live = row?.expiresAt && row.expiresAt > now ? row : null;
  return { origin, trusted, verified: live, expired: row && !live ? row : null };
}

/**
 * The launch-time trust decision for load aimed at a URL, in one place:
 * - `install`: the install's own organization; the operator trusts its targets.
 * - `verified`: the organization served its token over HTTP from this origin, recently; load may
 *   go only to the addresses it was served from (the worker checks the address it connects to).
 * - `probe-only`: anything else; at most a probe (see `probeRefusal`) may reach the origin.
 */
export type LoadTrust =
  | { kind: "install"; origin: string }
  | { kind: "verified"; origin: string; addresses: string[]; expiresAt: Date }
  | { kind: "probe-only"; origin: string; why: string };

export async function decideLoadTrust(db: Tx, orgId: string, url: string, now = new Date()): Promise<LoadTrust | null> {
  const status = await originStatus(db, orgId, url, now);
  if (!status.origin) return null;
  const origin = status.origin;
  if (status.trusted) return { kind: "install", origin };
  const v = status.verified;
  if (v && v.method === "http" && v.addresses.length > 0 && v.expiresAt) {
    return { kind: "verified", origin, addresses: v.addresses, expiresAt: v.expiresAt };
  }
  const why = v
    ? `${origin} is verified by DNS only; load needs the HTTP token served from the address the load goes to`
    : status.expired
      ? `the verification of ${origin} expired on ${status.expired.expiresAt?.toISOString()}; verify it again`
      : `${origin} is not verified for this organization`;
  return { kind: "probe-only", origin, why };
}

/**
 * Load reaches only origins the organization proved it controls. Until then a probe (at most
 * PROBE_MAX_REQUESTS GET requests to the root, launched once) may reach it, to see that it
 * answers. The install's own organization is trusted by the operator and needs no proof.
 */
export async function assertLoadMayReach(
  db: Tx,
  orgId: string,
  url: string,
  spec: TScenarioSpec | null,
  field = "targetId",
  launch: { shards: number; runs: number } = { shards: 1, runs: 1 },
): Promise<LoadTrust> {
  const trust = await decideLoadTrust(db, orgId, url);
  if (!trust) throw new ConflictError(field, "the target's URL is not an http(s) or ws(s) URL");
  if (trust.kind !== "probe-only") return trust;
  const refusal = probeRefusal(spec, launch);
  if (!refusal) return trust;
  throw new ConflictError(
    field,
    `${trust.why}: publish the verification token (see the target's page), or run a probe (${refusal})`,
  );
}

/**
 * May requests that are not load (monitor samples, "test connection", the instance-config PUT)
 * go to this URL for the organization? Only to an origin it verified (HTTP or DNS), and only
 * while the verification lasts: a DNS record covers the port it was verified for, not the host's
 * other ports, unless the operator set `dnsCoversAllPorts`. The install's own organization is
 * trusted.
 */
export async function requestsMayReach(
  db: Tx,
  orgId: string,
  url: string,
  install: { dnsCoversAllPorts?: boolean } = {},
  now = new Date(),
): Promise<boolean> {
  const status = await originStatus(db, orgId, url, now);
  if (!status.origin) return false;
  if (status.trusted || status.verified !== null) return true;
  if (!install.dnsCoversAllPorts) return false;
  const host = new URL(status.origin).hostname;
  const dns = await db.verifiedOrigin.findMany({
    where: { orgId, method: "dns", expiresAt: { gt: now } },
    select: { origin: true },
  });
  return dns.some((row) => new URL(row.origin).hostname === host);
}

export const UNVERIFIED_REQUEST_MESSAGE =
  "is not on an origin this organization has verified; verify it on the target's page first";
