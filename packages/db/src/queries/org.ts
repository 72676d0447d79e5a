import type { Db } from "../client";

export const LOCAL_ORG_SLUG = "local";

/** The organization used when the product runs without sign-in (single-team local install). */
export async function ensureLocalOrganization(db: Db) {
  return db.organization.upsert({
    where: { slug: LOCAL_ORG_SLUG },
    update: {},
    create: { slug: LOCAL_ORG_SLUG, name: "My team" },
  });
}
