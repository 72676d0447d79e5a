import {
  allowListForOrg,
  DEFAULT_INSTALL_SETTINGS,
  type InstallSettings,
  mergeInstallSettings,
  resolveOrgCaps,
  type TInstallSettingsInput,
  type TOrgCaps,
} from "@benchboard/core";
import { type AllowList, allowListText, parseAllowList } from "@benchboard/core/address";
import type { Db } from "../client";
import { NotFoundError } from "../errors";
import type { Prisma } from "../generated/prisma/client";

export const LOCAL_ORG_SLUG = "local";

/** The organization used when the product runs without sign-in (single-team local install). */
export async function ensureLocalOrganization(db: Db) {
  return db.organization.upsert({
    where: { slug: LOCAL_ORG_SLUG },
    update: {},
    create: { slug: LOCAL_ORG_SLUG, name: "My team" },
  });
}

/**
 * The install's own organization: the operator's. Its owners edit install settings, its runs may
 * read local processes, and its origins need no verification (the operator trusts them).
 */
export async function isInstallOrganization(db: Db | Prisma.TransactionClient, orgId: string): Promise<boolean> {
  const org = await db.organization.findUnique({ where: { id: orgId }, select: { slug: true } });
  return org?.slug === LOCAL_ORG_SLUG;
}

/**
 * Effective install settings: the environment's, with the operator's stored edits laid over them.
 */
export async function getInstallSettings(
  db: Db | Prisma.TransactionClient,
  fromEnv: InstallSettings = DEFAULT_INSTALL_SETTINGS,
): Promise<InstallSettings> {
  const row = await db.installSettings.findUnique({ where: { id: 1 } });
  if (!row) return fromEnv;
  return mergeInstallSettings(fromEnv, {
    allowedTargets: row.allowedTargetsSet ? row.allowedTargets : null,
    tenantTargets: row.tenantTargetsSet ? row.tenantTargets : null,
    signupOpen: row.signupOpen,
    defaultCaps: row.defaultCaps,
  });
}

/**
 * May this organization reach this address? The private addresses an organization's outbound
 * requests may go to: the operator's whole allow-list for the install's own organization, only
 * the entries opened to tenants for any other. Every outbound caller (load, monitors, config
 * hooks, webhooks, test connections) judges its URL against this list, e.g. with
 * `resolveUrl(url, { allowList })` from the load generator.
 */
export async function orgAllowList(
  db: Db | Prisma.TransactionClient,
  orgId: string,
  fromEnv: InstallSettings = DEFAULT_INSTALL_SETTINGS,
): Promise<AllowList> {
  const [settings, installOrg] = await Promise.all([getInstallSettings(db, fromEnv), isInstallOrganization(db, orgId)]);
  return allowListForOrg(settings, installOrg);
}

/** Store the operator's edits; keys left out keep their stored (or environment) value. */
export async function updateInstallSettings(
  db: Db,
  input: TInstallSettingsInput,
  options: { updatedById?: string | null; fromEnv?: InstallSettings } = {},
): Promise<InstallSettings> {
  const current = await db.installSettings.findUnique({ where: { id: 1 } });
  const caps = {
    ...((current?.defaultCaps as Record<string, unknown> | null) ?? {}),
    ...Object.fromEntries(Object.entries(input.defaultCaps ?? {}).filter(([, v]) => v !== undefined)),
  };
  const data = {
    ...(input.allowedTargets !== undefined
      ? { allowedTargets: allowListText(parseAllowList(input.allowedTargets).list), allowedTargetsSet: true }
      : {}),
    ...(input.tenantTargets !== undefined
      ? { tenantTargets: allowListText(parseAllowList(input.tenantTargets).list), tenantTargetsSet: true }
      : {}),
    ...(input.signupOpen !== undefined ? { signupOpen: input.signupOpen } : {}),
    defaultCaps: caps as Prisma.InputJsonValue,
    updatedById: options.updatedById ?? null,
  };
  await db.installSettings.upsert({
    where: { id: 1 },
    update: data,
    create: { id: 1, allowedTargets: [], ...data },
  });
  return getInstallSettings(db, options.fromEnv);
}

// ---- the organizations a user belongs to ----

/** A user's organizations with their role, their own first (oldest first), demo ones last. */
export async function listUserOrganizations(db: Db, userId: string) {
  const memberships = await db.membership.findMany({
    where: { userId },
    select: { role: true, org: { select: { id: true, name: true, slug: true, demo: true, createdAt: true } } },
  });
  return memberships
    .map((m) => ({ ...m.org, role: m.role }))
    .sort((a, b) => Number(a.demo) - Number(b.demo) || a.createdAt.getTime() - b.createdAt.getTime());
}

export async function getOrganization(db: Db, orgId: string) {
  return db.organization.findUniqueOrThrow({
    where: { id: orgId },
    select: { id: true, name: true, slug: true, demo: true, caps: true },
  });
}

/** The organization's caps on launched load, defaults filled in. */
export async function organizationCaps(db: Db, orgId: string) {
  const org = await db.organization.findUniqueOrThrow({ where: { id: orgId }, select: { caps: true } });
  return resolveOrgCaps(org.caps);
}

/** An organization's id and slug (a request may name it by either), or null when there is none. */
export async function findOrganizationRef(db: Db, orgId: string) {
  return db.organization.findUnique({ where: { id: orgId }, select: { id: true, slug: true } });
}

export async function renameOrganization(db: Db, orgId: string, input: { name?: string }) {
  return db.organization.update({ where: { id: orgId }, data: input, select: { id: true, name: true } });
}

/**
 * The organization a run belongs to, only when the user is a member of it: a link to a run of
 * another of their organizations can then offer to switch there. Null tells nothing about whether
 * the run exists elsewhere.
 */
export async function findRunOrganizationForUser(db: Db, userId: string, runId: string) {
  const run = await db.run.findUnique({
    where: { id: runId },
    select: {
      org: { select: { id: true, name: true, slug: true, memberships: { where: { userId }, select: { role: true } } } },
    },
  });
  if (!run || run.org.memberships.length === 0) return null;
  return { id: run.org.id, name: run.org.name, slug: run.org.slug };
}

// ---- every organization, for the operator ----

/**
 * Every organization of the install with its size and its caps as they apply (stored keys over
 * the defaults), for the operator's list. Oldest first: the install's own comes first.
 */
export async function listOrganizationsForOperator(db: Db) {
  const orgs = await db.organization.findMany({
    orderBy: { createdAt: "asc" },
    select: {
      id: true,
      name: true,
      slug: true,
      demo: true,
      caps: true,
      createdAt: true,
      _count: { select: { memberships: true, runs: true } },
    },
  });
  return orgs.map((o) => ({
    id: o.id,
    name: o.name,
    slug: o.slug,
    demo: o.demo,
    installOrganization: o.slug === LOCAL_ORG_SLUG,
    createdAt: o.createdAt,
    members: o._count.memberships,
    runs: o._count.runs,
    caps: resolveOrgCaps(o.caps),
  }));
}

/**
 * Change some of an organization's caps; keys left out keep their value. The whole set is
 * written down, so a later change of the defaults does not move it. Runs already queued keep the
 * caps they were checked against; the next launch is checked against these.
 */
export async function updateOrganizationCaps(db: Db, orgId: string, patch: Partial<TOrgCaps>) {
  return db.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<
      { caps: unknown }[]
    >`SELECT caps FROM "Organization" WHERE id = ${orgId} FOR UPDATE`;
    if (!rows[0]) throw new NotFoundError("orgId", "organization not found");
    const given = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
    const caps = { ...resolveOrgCaps(rows[0].caps), ...given };
    const org = await tx.organization.update({
      where: { id: orgId },
      data: { caps: caps as Prisma.InputJsonValue },
      select: { id: true, name: true, caps: true },
    });
    return { id: org.id, name: org.name, caps: resolveOrgCaps(org.caps) };
  });
}
