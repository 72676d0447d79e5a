import { randomBytes } from "node:crypto";
import pg from "pg";
import { createDb, type Db, DEFAULT_DATABASE_URL } from "./client";
import { applyMigrations, migrationsFingerprint, readMigrations } from "./migrate";

/**
 * Test databases: the migrations are applied once to a template named by their fingerprint;
 * every test file clones it (`CREATE DATABASE … TEMPLATE …`, ~150 ms) and drops its clone after.
 */
export const TEST_DB_PREFIX = "bb_test_";

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

const LOCK_KEY = 72_616_002;

async function admin<T>(baseUrl: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: withDatabase(baseUrl, "postgres") });
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [LOCK_KEY]);
    return await fn(client);
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [LOCK_KEY]).catch(() => {});
    await client.end();
  }
}

/**
 * DROP DATABASE … WITH (FORCE), tried again for a few seconds when PostgreSQL refuses to end a
 * session in it: an autovacuum worker has no role, so FORCE may not terminate one ("must be a
 * member of the role whose process is being terminated"), and it ends by itself within moments.
 */
async function dropDatabase(c: pg.Client, name: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== "42501" || attempt >= 20) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

async function ensureTemplate(baseUrl: string): Promise<string> {
  const template = `bb_template_${await migrationsFingerprint()}`;
  await admin(baseUrl, async (c) => {
    const exists = await c.query("SELECT 1 FROM pg_database WHERE datname = $1", [template]);
    if (exists.rowCount) return;
    const building = `${template}_building`;
    await dropDatabase(c, building);
    await c.query(`CREATE DATABASE "${building}"`);
    await applyMigrations(withDatabase(baseUrl, building));
    // Renaming after a complete migration means a half-built template is never cloned.
    await c.query(`ALTER DATABASE "${building}" RENAME TO "${template}"`);
  });
  return template;
}

export interface TestDatabase {
  url: string;
  name: string;
  db: Db;
  drop(): Promise<void>;
}

export async function createTestDatabase(
  baseUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL,
): Promise<TestDatabase> {
  const template = await ensureTemplate(baseUrl);
  const name = `${TEST_DB_PREFIX}${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;
  await admin(baseUrl, (c) => c.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`));
  const url = withDatabase(baseUrl, name);
  const db = createDb(url, { max: 5 });
  return {
    url,
    name,
    db,
    async drop() {
      await db.$disconnect();
      await admin(baseUrl, (c) => dropDatabase(c, name));
    },
  };
}

/** Drop test databases left behind by interrupted runs. */
export async function dropStaleTestDatabases(
  baseUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL,
): Promise<number> {
  return admin(baseUrl, async (c) => {
    const { rows } = await c.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE datname LIKE $1 OR datname LIKE 'bb_template_%'",
      [`${TEST_DB_PREFIX}%`],
    );
    const current = `bb_template_${await migrationsFingerprint()}`;
    let dropped = 0;
    for (const { datname } of rows) {
      if (datname === current) continue;
      await dropDatabase(c, datname);
      dropped++;
    }
    return dropped;
  });
}

/**
 * What the operator of a test install does: allow 127.0.0.1 as a target, where every test server
 * listens, and open it to tenants too. Tenants still need to verify an origin before it gets load.
 */
export async function allowLoopbackTargets(db: Db): Promise<void> {
  await db.installSettings.upsert({
    where: { id: 1 },
    update: {
      allowedTargets: ["127.0.0.1"],
      allowedTargetsSet: true,
      tenantTargets: ["127.0.0.1"],
      tenantTargetsSet: true,
    },
    create: {
      id: 1,
      allowedTargets: ["127.0.0.1"],
      allowedTargetsSet: true,
      tenantTargets: ["127.0.0.1"],
      tenantTargetsSet: true,
    },
  });
}

/** Run one migration's SQL file again on a test database (a repair migration's own test). */
export async function rerunMigration(t: TestDatabase, name: string): Promise<void> {
  const migration = (await readMigrations()).find((m) => m.name === name);
  if (!migration) throw new Error(`no migration ${name}`);
  const client = new pg.Client({ connectionString: t.url });
  await client.connect();
  try {
    await client.query(migration.sql);
  } finally {
    await client.end();
  }
}
