import { createDb, DEFAULT_DATABASE_URL, ensureLocalOrganization } from "../packages/db/src/index.ts";

// Demo data for a fresh install (idempotent). Filled in with the reference targets' projects.
const db = createDb(process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL);
try {
  const org = await ensureLocalOrganization(db);
  console.log(`[seed] organization ${org.name}`);
} finally {
  await db.$disconnect();
}
