import { randomBytes } from "node:crypto";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { createDb, type Db, DEFAULT_DATABASE_URL } from "./client";
import { applyMigrations, MIGRATIONS_DIR, migrationsFingerprint, readMigrations } from "./migrate";

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

/**
 * A database migrated up to, not including, the migration whose name ends with `suffix`: a
 * back-filling migration's test stores rows in the shape before it, applies the rest with
 * `applyMigrations(url)` and reads what the migration made of them.
 */
export async function createDatabaseBeforeMigration(
  suffix: string,
  baseUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL,
): Promise<{ url: string; drop(): Promise<void> }> {
  const all = await readMigrations();
  const index = all.findIndex((m) => m.name.endsWith(suffix));
  if (index < 1) throw new Error(`no migration after the first one ends with ${suffix}`);
  const name = `${TEST_DB_PREFIX}backfill_${randomBytes(4).toString("hex")}`;
  const url = withDatabase(baseUrl, name);
  const drop = () => admin(baseUrl, (c) => dropDatabase(c, name));
  const earlier = await mkdtemp(path.join(tmpdir(), "bb-migrations-"));
  try {
    for (const m of all.slice(0, index)) {
      await cp(path.join(MIGRATIONS_DIR, m.name), path.join(earlier, m.name), { recursive: true });
    }
    // From template0, which takes no connections, so a session on template1 never blocks it.
    await admin(baseUrl, (c) => c.query(`CREATE DATABASE "${name}" TEMPLATE template0`));
    await applyMigrations(url, { dir: earlier });
  } catch (error) {
    await drop().catch(() => {});
    throw error;
  } finally {
    await rm(earlier, { recursive: true, force: true });
  }
  return { url, drop };
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

/** A tenant's proof, good for a day, that it controls the test origin http://127.0.0.1:9. */
export async function verifyLoopbackOrigin(db: Db, orgId: string): Promise<void> {
  await db.verifiedOrigin.create({
    data: {
      orgId,
      origin: "http://127.0.0.1:9",
      method: "http",
      addresses: ["127.0.0.1"],
      expiresAt: new Date(Date.now() + 86_400_000),
    },
  });
}

/** Cancel the organization's queued and running runs, so the next launch starts within its caps. */
export async function endActiveRuns(db: Db, orgId: string): Promise<void> {
  await db.run.updateMany({
    where: { orgId, status: { in: ["queued", "running"] } },
    data: { status: "canceled", endedAt: new Date() },
  });
}

/** A run's stored detail as retention leaves or trims it: its series by metric, its shard and its result. */
export async function readRunDetail(db: Db, runId: string) {
  const [series, shard, result] = await Promise.all([
    db.series.findMany({ where: { runId }, orderBy: { metric: "asc" } }),
    db.runShard.findFirstOrThrow({ where: { runId } }),
    db.runResult.findUniqueOrThrow({ where: { runId } }),
  ]);
  return { series, shard, result };
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
