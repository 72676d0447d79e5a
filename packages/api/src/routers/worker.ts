import { listWorkersFor, onlineWorkerLabels, WORKER_OFFLINE_AFTER_MS } from "@benchboard/db";
import { orgProcedure, router } from "../trpc";

export { WORKER_OFFLINE_AFTER_MS };

export const workerRouter = router({
  /**
   * Worker processes of this install (shared infrastructure): labels, capacity, liveness. Where
   * they run (id, host, pid) is shown to the install's own organization only.
   */
  list: orgProcedure.query(({ ctx }) => listWorkersFor(ctx.db, ctx.orgId)),
  /** Labels offered by online workers, with how many offer each (for the launch form). */
  labels: orgProcedure.query(({ ctx }) => onlineWorkerLabels(ctx.db, WORKER_OFFLINE_AFTER_MS)),
});
