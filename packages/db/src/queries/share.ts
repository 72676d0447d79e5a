import { randomBytes } from "node:crypto";
import { redactForShare } from "@benchboard/core";
import { hashToken } from "../auth/tokens";
import type { Db } from "../client";
import { ConflictError, NotFoundError } from "../errors";
import { savedComparisonSelect, withView } from "./comparison";
import { getRunChart, getRunView } from "./run-detail";

/** 32 random bytes, base64url: 43 characters. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function newShareToken(): string {
  return randomBytes(32).toString("base64url");
}

export interface ShareTarget {
  runId?: string | null;
  comparisonId?: string | null;
}

async function checkTarget(db: Db, orgId: string, target: ShareTarget) {
  if (Boolean(target.runId) === Boolean(target.comparisonId)) {
    throw new ConflictError("runId", "share either a run or a comparison");
  }
  if (target.runId) {
    const run = await db.run.findFirst({ where: { orgId, id: target.runId }, select: { id: true } });
    if (!run) throw new NotFoundError("runId", "run not found");
  } else {
    const comparison = await db.comparison.findFirst({
      where: { orgId, id: target.comparisonId! },
      select: { id: true },
    });
    if (!comparison) throw new NotFoundError("comparisonId", "comparison not found");
  }
}

/** How long a link works when the sharer does not choose (they may choose "never"). */
export const DEFAULT_SHARE_DAYS = 30;

const linkSelect = {
  id: true,
  includeTarget: true,
  runId: true,
  comparisonId: true,
  createdAt: true,
  expiresAt: true,
  revokedAt: true,
  lastViewedAt: true,
} as const;

export async function createShareLink(
  db: Db,
  orgId: string,
  input: ShareTarget & { expiresAt?: Date | null; createdById?: string | null; includeTarget?: boolean },
) {
  await checkTarget(db, orgId, input);
  if (input.expiresAt && input.expiresAt.getTime() <= Date.now()) {
    throw new ConflictError("expiresAt", "the expiry must be in the future");
  }
  // Only the hash is stored: the token is returned this once, for the sharer to copy.
  const token = newShareToken();
  const link = await db.shareLink.create({
    data: {
      orgId,
      tokenHash: hashToken(token),
      includeTarget: input.includeTarget ?? false,
      runId: input.runId ?? null,
      comparisonId: input.comparisonId ?? null,
      expiresAt: input.expiresAt ?? null,
      createdById: input.createdById ?? null,
    },
    select: linkSelect,
  });
  return { ...link, token };
}

export async function listShareLinks(db: Db, orgId: string, target: ShareTarget) {
  await checkTarget(db, orgId, target);
  return db.shareLink.findMany({
    where: { orgId, ...(target.runId ? { runId: target.runId } : { comparisonId: target.comparisonId! }) },
    orderBy: { createdAt: "desc" },
    select: linkSelect,
  });
}

export async function revokeShareLink(db: Db, orgId: string, id: string) {
  const { count } = await db.shareLink.updateMany({
    where: { orgId, id, revokedAt: null },
    data: { revokedAt: new Date() },
  });
  if (count === 0) {
    const exists = await db.shareLink.findFirst({ where: { orgId, id }, select: { id: true } });
    if (!exists) throw new NotFoundError("id", "share link not found");
  }
  return db.shareLink.findFirstOrThrow({ where: { orgId, id }, select: linkSelect });
}

/**
 * What a public share link shows, or null for an unknown, revoked or expired token. Only the
 * linked run, or the linked comparison and its runs, are loaded; the caller has no organization.
 */
export async function resolveShareLink(db: Db, token: string, now = new Date()) {
  if (!TOKEN_PATTERN.test(token)) return null;
  const link = await db.shareLink.findUnique({
    where: { tokenHash: hashToken(token) },
    select: {
      id: true,
      orgId: true,
      runId: true,
      comparisonId: true,
      expiresAt: true,
      revokedAt: true,
      includeTarget: true,
    },
  });
  if (!link || link.revokedAt || (link.expiresAt && link.expiresAt <= now)) return null;
  let shared:
    | {
        kind: "run";
        run: NonNullable<Awaited<ReturnType<typeof getRunView>>>;
        chart: Awaited<ReturnType<typeof getRunChart>>;
      }
    | { kind: "comparison"; comparison: Awaited<ReturnType<typeof withView>> }
    | null = null;
  if (link.runId) {
    const run = await getRunView(db, link.orgId, link.runId);
    if (run) shared = { kind: "run", run, chart: await getRunChart(db, link.orgId, link.runId) };
  } else if (link.comparisonId) {
    const saved = await db.comparison.findFirst({
      where: { orgId: link.orgId, id: link.comparisonId },
      select: savedComparisonSelect,
    });
    if (saved) shared = { kind: "comparison", comparison: await withView(db, saved) };
  }
  if (!shared) return null;
  await db.shareLink.update({ where: { id: link.id }, data: { lastViewedAt: now } }).catch(() => {});
  // A snapshot of what was meant to be shared: without target details unless the sharer chose them.
  return {
    expiresAt: link.expiresAt,
    includeTarget: link.includeTarget,
    ...(link.includeTarget ? shared : redactForShare(shared)),
  };
}

export type SharedView = NonNullable<Awaited<ReturnType<typeof resolveShareLink>>>;
