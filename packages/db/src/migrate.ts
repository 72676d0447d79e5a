import { createHash, randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";

/**
 * Applies `prisma/migrations/<name>/migration.sql` files in order, each in its own transaction,
 * under an advisory lock, recording them in Prisma's `_prisma_migrations` table with Prisma's
 * checksum (sha256 of the file) so `prisma migrate deploy` sees the same state wherever the Prisma
 * schema engine is available. A migration whose file changed after it was applied is an error.
 */
export const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../prisma/migrations");

const LOCK_KEY = 72_616_001; // arbitrary, fixed: serialises concurrent migrators

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export async function readMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const buf = await readFile(path.join(dir, name, "migration.sql"));
      return { name, sql: buf.toString("utf8"), checksum: createHash("sha256").update(buf).digest("hex") };
    }),
  );
}

/** A short hash of all migrations: names a template database that is valid for them. */
export async function migrationsFingerprint(dir = MIGRATIONS_DIR): Promise<string> {
  const h = createHash("sha256");
  for (const m of await readMigrations(dir)) h.update(`${m.name}:${m.checksum}\n`);
  return h.digest("hex").slice(0, 12);
}

export async function applyMigrations(
  databaseUrl: string,
  options: { dir?: string; log?: (line: string) => void } = {},
): Promise<{ applied: string[] }> {
  const log = options.log ?? (() => {});
  const migrations = await readMigrations(options.dir);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const applied: string[] = [];
  try {
    await client.query("SELECT pg_advisory_lock($1)", [LOCK_KEY]);
    await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL,
      "checksum" VARCHAR(64) NOT NULL,
      "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL,
      "logs" TEXT,
      "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
      "applied_steps_count" INTEGER NOT NULL DEFAULT 0
    )`);
    const { rows } = await client.query<{ migration_name: string; checksum: string; finished_at: Date | null }>(
      `SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`,
    );
    const done = new Map(rows.map((r) => [r.migration_name, r]));
    for (const m of migrations) {
      const prev = done.get(m.name);
      if (prev?.finished_at) {
        if (prev.checksum !== m.checksum) {
          throw new Error(`migration ${m.name} was changed after it was applied (checksum mismatch)`);
        }
        continue;
      }
      if (prev && !prev.finished_at) {
        throw new Error(`migration ${m.name} failed earlier and needs manual attention`);
      }
      const id = randomUUID();
      await client.query("BEGIN");
      try {
        await client.query(m.sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count)
           VALUES ($1, $2, now(), $3, 1)`,
          [id, m.checksum, m.name],
        );
        await client.query("COMMIT");
      } catch (err) {
        await client.query("ROLLBACK");
        throw new Error(`migration ${m.name} failed: ${(err as Error).message}`);
      }
      applied.push(m.name);
      log(`applied ${m.name}`);
    }
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [LOCK_KEY]).catch(() => {});
    await client.end();
  }
  return { applied };
}
