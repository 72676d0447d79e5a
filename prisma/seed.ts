import { createDb, DEFAULT_DATABASE_URL, ensureLocalOrganization } from "../packages/db/src/index.ts";
import { seedPublishedDemo } from "../packages/db/src/seed/index.ts";
import { seedReferenceTargets } from "../packages/db/src/seed/reference-targets.ts";

// Demo data for a fresh install (idempotent): the local organization with projects for the
// reference targets that the quick start runs on this machine, and the demo organization holding
// the published benchmark results (shared/seeds) as imported runs, comparisons and sweeps.
const db = createDb(process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL);
try {
  const org = await ensureLocalOrganization(db);
  await seedReferenceTargets(db, org.id);
  console.log(`[seed] organization "${org.name}" with the reference targets' projects`);
  const demo = await seedPublishedDemo(db);
  console.log(`[seed] demo organization: ${demo.runs} published runs, ${demo.tables} comparisons and sweeps`);
} finally {
  await db.$disconnect();
}
