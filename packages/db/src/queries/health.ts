import type { Db } from "../client";

/** Whether PostgreSQL answers a trivial query: for health checks, which say only "ok" or not. */
export async function databaseAnswers(db: Db): Promise<boolean> {
  try {
    await db.$queryRaw`SELECT 1`;
    return true;
  } catch {
    return false;
  }
}
