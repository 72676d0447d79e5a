import { DEFAULT_DATABASE_URL } from "./client";
import { applyMigrations } from "./migrate";

const url = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
try {
  const { applied } = await applyMigrations(url, { log: (l) => console.log(`[migrate] ${l}`) });
  console.log(applied.length ? `[migrate] ${applied.length} migration(s) applied` : "[migrate] database is up to date");
} catch (err) {
  console.error(`[migrate] ${(err as Error).message}`);
  process.exit(1);
}
