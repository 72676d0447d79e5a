import { orgProcedure, router } from "../trpc";

/** A worker that has not announced itself for this long is shown as offline. */
export const WORKER_OFFLINE_AFTER_MS = 15_000;

export const workerRouter = router({
  /** Worker processes of this install (shared infrastructure): host, labels, capacity, liveness. */
  list: orgProcedure.query(async ({ ctx }) => {
    const workers = await ctx.db.worker.findMany({ orderBy: [{ heartbeatAt: "desc" }] });
    const now = Date.now();
    return workers.map((w) => ({
      ...w,
      online: now - w.heartbeatAt.getTime() < WORKER_OFFLINE_AFTER_MS,
      heartbeatAgeMs: now - w.heartbeatAt.getTime(),
    }));
  }),
});
