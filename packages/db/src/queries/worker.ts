import type { Db } from "../client";
import { LOCAL_ORG_SLUG } from "./org";

/** A worker that has not announced itself for this long is shown as offline. */
export const WORKER_OFFLINE_AFTER_MS = 15_000;

/**
 * The install's worker processes (shared infrastructure) as an organization sees them: labels,
 * capacity, liveness. Where they run (id, host, pid) is shown to the install's own organization
 * only; anyone who signs up gets an organization of their own and sees "worker 1", … without hosts.
 */
export async function listWorkersFor(db: Db, orgId: string, now = Date.now()) {
  const [workers, org] = await Promise.all([
    db.worker.findMany({ orderBy: [{ heartbeatAt: "desc" }, { id: "asc" }] }),
    db.organization.findUnique({ where: { id: orgId }, select: { slug: true } }),
  ]);
  const operator = org?.slug === LOCAL_ORG_SLUG;
  return workers.map((w, i) => ({
    id: operator ? w.id : `worker ${i + 1}`,
    host: operator ? w.host : null,
    pid: operator ? w.pid : null,
    labels: w.labels,
    capacity: w.capacity,
    activeJobs: w.activeJobs,
    startedAt: w.startedAt,
    heartbeatAt: w.heartbeatAt,
    online: now - w.heartbeatAt.getTime() < WORKER_OFFLINE_AFTER_MS,
    heartbeatAgeMs: now - w.heartbeatAt.getTime(),
  }));
}
