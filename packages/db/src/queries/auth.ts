import { createHash, timingSafeEqual } from "node:crypto";
import { DEFAULT_INSTALL_SETTINGS, type InstallSettings } from "@benchboard/core";
import { decoyHash, hashPassword, verifyPassword } from "../auth/password";
import { hashToken, newToken } from "../auth/tokens";
import type { Db } from "../client";
import { ConflictError, NotFoundError } from "../errors";
import type { Role } from "../generated/prisma/enums";
import { ensureLocalOrganization, LOCAL_ORG_SLUG } from "./org";
import { assertProjectInOrg } from "./project";

export const SESSION_TTL_MS = 30 * 24 * 3600 * 1000;
/** Sessions are extended when used, at most this often (saves a write per request). */
const SESSION_TOUCH_MS = 3600 * 1000;
export const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;
export const API_TOKEN_PREFIX = "bb_";

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * Create an account. The first account of an install owns the local organization; later ones
 * get an organization of their own (and join others through invitations). An account made from
 * an invitation link (`invitationToken`) joins the inviting organization instead, in the same
 * transaction, and gets no organization of its own. Demo organizations are public data read
 * through `callerOrganizations`, not memberships: sign-up adds none.
 */
export async function signUp(
  db: Db,
  input: {
    email: string;
    name?: string;
    invitationToken?: string;
    setupToken?: string;
  } & ({ password: string } | { passwordHash: string }),
  install: Pick<InstallSettings, "signupOpen" | "defaultCaps"> & {
    setupToken?: string | null;
  } = DEFAULT_INSTALL_SETTINGS,
) {
  const email = normalizeEmail(input.email);
  // The invitation is judged first: whether the email has an account is said only to the holder
  // of a valid invitation for that very email.
  const invitation = input.invitationToken ? await getInvitation(db, input.invitationToken) : null;
  if (input.invitationToken && !invitation) {
    throw new NotFoundError("invitation", "this invitation is invalid, used or expired");
  }
  if (invitation && invitation.email !== email) {
    throw new ConflictError("email", `this invitation is for ${invitation.email}`);
  }
  if (await db.user.findUnique({ where: { email } })) {
    throw new ConflictError(
      "email",
      invitation
        ? "an account with this email already exists: sign in to accept the invitation"
        : "an account with this email already exists",
    );
  }
  const local = await ensureLocalOrganization(db);
  if (!install.signupOpen && !invitation) {
    // Closed: the install's first account (the operator), and people holding an invitation link.
    // A pending invitation for the email is not enough: without its link anyone could take the
    // invitee's address (and the invitee could no longer join).
    const localHasOwner = await db.membership.count({ where: { orgId: local.id, role: "owner" } });
    if (localHasOwner) {
      throw new ConflictError("email", SIGN_UP_CLOSED);
    }
  }
  const passwordHash = "passwordHash" in input ? input.passwordHash : await hashPassword(input.password);
  return db.$transaction(async (tx) => {
    // Two first sign-ups at once: the lock makes the second see the first's ownership.
    await tx.$queryRaw`SELECT id FROM "Organization" WHERE id = ${local.id} FOR UPDATE`;
    const localHasOwner = await tx.membership.count({ where: { orgId: local.id, role: "owner" } });
    // The operator's account needs the install's setup token: a page that reaches a fresh install
    // (a rebound DNS name, a forgotten port) cannot create it.
    if (!localHasOwner && install.setupToken && !sameSecret(input.setupToken ?? "", install.setupToken)) {
      throw new ConflictError(
        "setupToken",
        "the install's first account needs the setup token that scripts/up.sh printed (the sign-up link it shows)",
      );
    }
    const user = await tx.user.create({ data: { email, name: input.name?.trim() ?? "", passwordHash } });
    if (invitation && localHasOwner) {
      // Accepted once: a second use of the link (or a race) finds it taken and stores nothing.
      const taken = await tx.invitation.updateMany({
        where: { id: invitation.id, acceptedAt: null },
        data: { acceptedAt: new Date() },
      });
      if (taken.count !== 1) throw new NotFoundError("invitation", "this invitation is invalid, used or expired");
      await tx.membership.create({ data: { orgId: invitation.org.id, userId: user.id, role: invitation.role } });
    } else if (!localHasOwner) {
      await tx.membership.create({ data: { orgId: local.id, userId: user.id, role: "owner" } });
    } else {
      const base = email.split("@")[0]?.replace(/[^a-z0-9]+/g, "-") || "team";
      // A self-serve organization starts with the operator's default caps, written down so
      // that a later change of defaults does not silently widen it.
      const org = await tx.organization.create({
        data: {
          name: `${input.name?.trim() || base}'s team`,
          slug: `${base}-${user.id.slice(-6)}`,
          caps: { ...install.defaultCaps },
        },
      });
      await tx.membership.create({ data: { orgId: org.id, userId: user.id, role: "owner" } });
    }
    return { ...user, joinedOrg: invitation && localHasOwner ? invitation.org : null };
  });
}

/** What closed sign-up answers anyone without an invitation link, whether or not they have an account. */
export const SIGN_UP_CLOSED = "sign-up is closed on this install; ask an owner for an invitation";

/** Returns the user for valid credentials, else null (same timing for unknown emails). */
export async function checkCredentials(db: Db, emailInput: string, password: string) {
  const user = await db.user.findUnique({ where: { email: normalizeEmail(emailInput) } });
  if (!user?.passwordHash) {
    await verifyPassword(password, await decoyHash());
    return null;
  }
  return (await verifyPassword(password, user.passwordHash)) ? user : null;
}

export async function createSession(db: Db, userId: string, userAgent?: string | null) {
  const token = newToken();
  const expiresAt = new Date(Date.now() + SESSION_TTL_MS);
  await db.session.create({
    data: { tokenHash: hashToken(token), userId, expiresAt, userAgent: userAgent?.slice(0, 300) ?? null },
  });
  return { token, expiresAt };
}

/** The signed-in user and their memberships for a session cookie, or null. */
export async function getSessionUser(db: Db, token: string | undefined | null) {
  if (!token) return null;
  const session = await db.session.findUnique({
    where: { tokenHash: hashToken(token) },
    include: {
      user: {
        select: {
          id: true,
          email: true,
          name: true,
          memberships: { select: { orgId: true, role: true, org: { select: { slug: true, name: true, demo: true } } } },
        },
      },
    },
  });
  if (!session || session.expiresAt < new Date()) return null;
  if (Date.now() - session.lastSeenAt.getTime() > SESSION_TOUCH_MS) {
    await db.session.update({
      where: { id: session.id },
      data: { lastSeenAt: new Date(), expiresAt: new Date(Date.now() + SESSION_TTL_MS) },
    });
  }
  return { sessionId: session.id, user: session.user, orgs: await callerOrganizations(db, session.user.memberships) };
}

/** An organization a signed-in account may act in, with its role there. */
export type CallerOrganization = {
  orgId: string;
  role: Role;
  /** A demo organization read as public data: the account is not one of its members. */
  public: boolean;
  org: { slug: string; name: string; demo: boolean };
};

/**
 * The organizations an account may act in: its memberships, then every demo organization it is
 * not a member of, read as a viewer. A demo organization's readers are no members of it: they
 * appear in no member list and membership counts, and a viewer cannot list members anyway.
 */
export async function callerOrganizations(
  db: Db,
  memberships: Array<{ orgId: string; role: Role; org: { slug: string; name: string; demo: boolean } }>,
): Promise<CallerOrganization[]> {
  const mine = new Set(memberships.map((m) => m.orgId));
  const demos = await db.organization.findMany({
    where: { demo: true, id: { notIn: [...mine] } },
    select: { id: true, slug: true, name: true, demo: true },
    orderBy: { createdAt: "asc" },
  });
  return [
    ...memberships.map((m) => ({ orgId: m.orgId, role: m.role, public: false, org: m.org })),
    ...demos.map((d) => ({
      orgId: d.id,
      role: "viewer" as Role,
      public: true,
      org: { slug: d.slug, name: d.name, demo: d.demo },
    })),
  ];
}

/** The organizations of `callerOrganizations` for an account, with their creation time (for lists). */
export async function listCallerOrganizations(db: Db, userId: string) {
  const memberships = await db.membership.findMany({
    where: { userId },
    select: { orgId: true, role: true, org: { select: { slug: true, name: true, demo: true } } },
  });
  const orgs = await callerOrganizations(db, memberships);
  const details = await db.organization.findMany({
    where: { id: { in: orgs.map((o) => o.orgId) } },
    select: { id: true, createdAt: true },
  });
  const created = new Map(details.map((d) => [d.id, d.createdAt]));
  return orgs.map((o) => ({ ...o, createdAt: created.get(o.orgId) ?? new Date(0) }));
}

export async function deleteSession(db: Db, token: string) {
  await db.session.deleteMany({ where: { tokenHash: hashToken(token) } });
}

// ---- invitations ----

export async function createInvitation(
  db: Db,
  orgId: string,
  input: { email: string; role: Role; invitedById: string | null },
) {
  const email = normalizeEmail(input.email);
  const existing = await db.membership.findFirst({ where: { orgId, user: { email } } });
  if (existing) throw new ConflictError("email", "this person is already a member");
  const token = newToken();
  const invitation = await db.invitation.create({
    data: {
      orgId,
      email,
      role: input.role,
      tokenHash: hashToken(token),
      invitedById: input.invitedById,
      expiresAt: new Date(Date.now() + INVITATION_TTL_MS),
    },
    select: { id: true, email: true, role: true, expiresAt: true, createdAt: true },
  });
  return { invitation, token };
}

export async function getInvitation(db: Db, token: string) {
  const inv = await db.invitation.findUnique({
    where: { tokenHash: hashToken(token) },
    select: {
      id: true,
      email: true,
      role: true,
      expiresAt: true,
      acceptedAt: true,
      org: { select: { id: true, name: true, slug: true } },
    },
  });
  if (!inv || inv.acceptedAt || inv.expiresAt < new Date()) return null;
  return inv;
}

/** The signed-in user accepts an invitation addressed to their email. */
export async function acceptInvitation(db: Db, token: string, userId: string) {
  const inv = await getInvitation(db, token);
  if (!inv) throw new NotFoundError("token", "this invitation is invalid, used or expired");
  const user = await db.user.findUniqueOrThrow({ where: { id: userId }, select: { email: true } });
  if (user.email !== inv.email) throw new ConflictError("token", `this invitation is for ${inv.email}`);
  const existing = await db.membership.findUnique({ where: { orgId_userId: { orgId: inv.org.id, userId } } });
  // An invitation never lowers a role someone already has (nor demotes the last owner).
  const rank = { viewer: 0, member: 1, owner: 2 } as const;
  const role = existing && rank[existing.role] >= rank[inv.role] ? existing.role : inv.role;
  await db.$transaction([
    db.membership.upsert({
      where: { orgId_userId: { orgId: inv.org.id, userId } },
      create: { orgId: inv.org.id, userId, role },
      update: { role },
    }),
    db.invitation.update({ where: { id: inv.id }, data: { acceptedAt: new Date() } }),
  ]);
  return inv.org;
}

// ---- API tokens ----

/**
 * What an API token may do: read runs, upload or report runs (`exec`), launch stored scenarios,
 * read the project's configuration (targets, instance configs, scenarios, thresholds; secrets
 * never), and change it (`benchboard apply`).
 */
export const API_TOKEN_SCOPES = ["runs:read", "runs:write", "runs:launch", "config:read", "config:write"] as const;
export type ApiTokenScope = (typeof API_TOKEN_SCOPES)[number];

export async function createApiToken(
  db: Db,
  orgId: string,
  input: {
    name: string;
    projectId?: string | null;
    scopes: ApiTokenScope[];
    createdById: string | null;
    expiresAt?: Date | null;
  },
) {
  if (input.projectId) await assertProjectInOrg(db, orgId, input.projectId);
  const token = newToken(API_TOKEN_PREFIX);
  const record = await db.apiToken.create({
    data: {
      orgId,
      projectId: input.projectId ?? null,
      name: input.name,
      tokenHash: hashToken(token),
      prefix: token.slice(0, API_TOKEN_PREFIX.length + 6),
      scopes: input.scopes,
      createdById: input.createdById,
      expiresAt: input.expiresAt ?? null,
    },
    select: apiTokenPublicSelect,
  });
  return { token, record };
}

export const apiTokenPublicSelect = {
  id: true,
  name: true,
  prefix: true,
  scopes: true,
  projectId: true,
  lastUsedAt: true,
  expiresAt: true,
  revokedAt: true,
  createdAt: true,
} as const;

/**
 * Resolve a bearer token: null when unknown, revoked or expired, or when the member who created it
 * has left the organization. Records last use.
 *
 * A token acts with its creator's current role, capped at member: a creator demoted to viewer
 * leaves a read-only token. Tokens without a creator (made by tooling such as the demo seed)
 * act as a member.
 */
export async function verifyApiToken(db: Db, token: string) {
  if (!token.startsWith(API_TOKEN_PREFIX)) return null;
  const record = await db.apiToken.findUnique({ where: { tokenHash: hashToken(token) } });
  if (!record || record.revokedAt || (record.expiresAt && record.expiresAt < new Date())) return null;
  // An agent token is good for the agent routes only.
  if (record.kind !== "api") return null;
  let role: "member" | "viewer" = "member";
  if (record.createdById) {
    const membership = await db.membership.findUnique({
      where: { orgId_userId: { orgId: record.orgId, userId: record.createdById } },
      select: { role: true },
    });
    if (!membership) return null;
    if (membership.role === "viewer") role = "viewer";
  }
  await db.apiToken.update({ where: { id: record.id }, data: { lastUsedAt: new Date() } });
  return {
    id: record.id,
    orgId: record.orgId,
    projectId: record.projectId,
    scopes: record.scopes as ApiTokenScope[],
    role,
  };
}

export async function listApiTokens(db: Db, orgId: string) {
  return db.apiToken.findMany({
    where: { orgId, kind: "api" },
    orderBy: { createdAt: "desc" },
    select: { ...apiTokenPublicSelect, createdBy: { select: { id: true, email: true, name: true } } },
  });
}

/** Who created one of the organization's tokens (`createdById` null when tooling made it); null for no such token. */
export async function findApiTokenCreator(db: Db, orgId: string, id: string) {
  return db.apiToken.findFirst({ where: { id, orgId }, select: { createdById: true } });
}

export async function revokeApiToken(db: Db, orgId: string, id: string) {
  const { count } = await db.apiToken.updateMany({
    where: { orgId, id, revokedAt: null },
    data: { revokedAt: new Date() },
  });
  if (!count) throw new NotFoundError("id", "token not found or already revoked");
}

/** Whether the install's local organization has an owner yet (the first sign-up becomes it). */
export async function installHasOwner(db: Db): Promise<boolean> {
  const owners = await db.membership.count({ where: { role: "owner", org: { slug: LOCAL_ORG_SLUG } } });
  return owners > 0;
}

function sameSecret(given: string, expected: string): boolean {
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b);
}
