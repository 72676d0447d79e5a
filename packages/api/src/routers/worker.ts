import { LOCAL_ORG_SLUG, onlineWorkerLabels } from "@benchboard/db";
import { orgProcedure, router } from "../trpc";

/** A worker that has not announced itself for this long is shown as offline. */
export const WORKER_OFFLINE_AFTER_MS = 15_000;

export const workerRouter = router({
  /**
   * Worker processes of this install (shared infrastructure): labels, capacity, liveness. Where
   * they run (id, host, pid) is shown to the install's own organization only; anyone who signs
   * up gets an organization of their own and sees the workers without their hosts.
   */
  list: orgProcedure.query(async ({ ctx }) => {
    const [workers, org] = await Promise.all([
      ctx.db.worker.findMany({ orderBy: [{ heartbeatAt: "desc" }, { id: "asc" }] }),
      ctx.db.organization.findUnique({ where: { id: ctx.orgId }, select: { slug: true } }),
    ]);
    const operator = org?.slug === LOCAL_ORG_SLUG;
    const now = Date.now();
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
  }),
  /** Labels offered by online workers, with how many offer each (for the launch form). */
  labels: orgProcedure.query(({ ctx }) => onlineWorkerLabels(ctx.db, WORKER_OFFLINE_AFTER_MS)),
});
