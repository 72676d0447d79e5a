import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/prisma/client";

export type Db = PrismaClient;

export const DEFAULT_DATABASE_URL = "postgresql://benchboard:benchboard@127.0.0.1:5432/benchboard";

export function createDb(databaseUrl: string, options: { max?: number } = {}): Db {
  const adapter = new PrismaPg({ connectionString: databaseUrl, max: options.max ?? 10 });
  return new PrismaClient({ adapter });
}

const globalForDb = globalThis as unknown as { benchboardDb?: Db; benchboardDbUrl?: string };

/** One client per process (Next.js dev reloads modules; the client must survive that). */
export function getDb(databaseUrl: string): Db {
  if (!globalForDb.benchboardDb || globalForDb.benchboardDbUrl !== databaseUrl) {
    globalForDb.benchboardDb = createDb(databaseUrl);
    globalForDb.benchboardDbUrl = databaseUrl;
  }
  return globalForDb.benchboardDb;
}
