import type { Db } from "../client";
import { ConflictError, NotFoundError } from "../errors";
import type { Prisma, Role } from "../generated/prisma/client";

/**
 * The people of an organization, for its owners and members. A demo organization's readers are
 * every account on the install: its published benchmarks are public data, its member list is not.
 */
export async function listMembers(db: Db, orgId: string) {
  const org = await db.organization.findUnique({ where: { id: orgId }, select: { demo: true } });
  if (!org || org.demo) throw new NotFoundError("orgId", "this organization's members are not listed");
  return db.membership.findMany({
    where: { orgId },
    orderBy: { createdAt: "asc" },
    select: { id: true, role: true, createdAt: true, user: { select: { id: true, email: true, name: true } } },
  });
}

/**
 * The membership, read under a lock on the organization's owner rows: two owners demoting or
 * removing each other at once are serialized, so the second sees the first's change and the
 * organization keeps an owner.
 */
async function lockedMembership(tx: Prisma.TransactionClient, orgId: string, membershipId: string) {
  await tx.$queryRaw`SELECT id FROM "Membership" WHERE "orgId" = ${orgId} AND role = 'owner' FOR UPDATE`;
  const m = await tx.membership.findFirst({ where: { id: membershipId, orgId } });
  if (!m) throw new NotFoundError("id", "member not found");
  return m;
}

async function assertAnotherOwner(tx: Prisma.TransactionClient, orgId: string, membershipId: string) {
  const others = await tx.membership.count({ where: { orgId, role: "owner", id: { not: membershipId } } });
  if (others < 1) throw new ConflictError("role", "an organization needs at least one owner");
}

/** Change a member's role; the last owner cannot be demoted, checked in the same transaction. */
export async function changeMemberRole(db: Db, orgId: string, membershipId: string, role: Role) {
  return db.$transaction(async (tx) => {
    const m = await lockedMembership(tx, orgId, membershipId);
    if (m.role === role) return m;
    if (m.role === "owner") await assertAnotherOwner(tx, orgId, m.id);
    return tx.membership.update({ where: { id: m.id }, data: { role } });
  });
}

/**
 * Remove a member and revoke the API tokens they made for the organization (they stop working
 * with the membership anyway; revoking shows it in the token list). The last owner stays.
 */
export async function removeMember(db: Db, orgId: string, membershipId: string) {
  await db.$transaction(async (tx) => {
    const m = await lockedMembership(tx, orgId, membershipId);
    if (m.role === "owner") await assertAnotherOwner(tx, orgId, m.id);
    await tx.membership.delete({ where: { id: m.id } });
    await tx.apiToken.updateMany({
      where: { orgId, createdById: m.userId, revokedAt: null },
      data: { revokedAt: new Date() },
    });
  });
}

/** Pending invitations of an organization. */
export function listInvitations(db: Db, orgId: string) {
  return db.invitation.findMany({
    where: { orgId, acceptedAt: null, expiresAt: { gt: new Date() } },
    select: { id: true, email: true, role: true, expiresAt: true, createdAt: true },
    orderBy: { createdAt: "desc" },
  });
}

export async function revokeInvitation(db: Db, orgId: string, id: string) {
  const { count } = await db.invitation.deleteMany({ where: { id, orgId, acceptedAt: null } });
  if (!count) throw new NotFoundError("id", "invitation not found");
}
