import type { LifecycleDeps } from "@benchboard/db";
import { createDispatch, type QueueFor } from "@benchboard/jobs";
import { mergeShardResults } from "@benchboard/loadgen";

/** The run lifecycle's dependencies for a process that is not a worker (the web app). */
export function runLifecycleDeps(queueFor: QueueFor, log?: (line: string) => void): LifecycleDeps {
  return { dispatch: createDispatch(queueFor), mergeShards: mergeShardResults, ...(log ? { log } : {}) };
}
