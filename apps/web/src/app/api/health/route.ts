import { databaseAnswers, getDb } from "@benchboard/db";
import { env } from "~/env";

/** How long the database check may take before the answer says it is unreachable. */
const DATABASE_CHECK_MS = 1_000;

/**
 * The process is up and serving: 200, with whether PostgreSQL answered within a second. The app
 * stays up through a database or Redis outage (pages say what they can't show), so neither
 * decides the status: a probe that restarted or unlisted every replica while PostgreSQL restarts
 * would turn a short outage into a long one. Nothing here needs a session, and nothing says more
 * than "ok" or "unreachable".
 */
export async function GET() {
  let timer: NodeJS.Timeout | undefined;
  const database = await Promise.race([
    databaseAnswers(getDb(env.DATABASE_URL)).then((ok) => (ok ? ("ok" as const) : ("unreachable" as const))),
    new Promise<"unreachable">((resolve) => {
      timer = setTimeout(() => resolve("unreachable"), DATABASE_CHECK_MS);
    }),
  ]);
  clearTimeout(timer);
  return Response.json({ status: "ok", database }, { headers: { "cache-control": "no-store" } });
}
