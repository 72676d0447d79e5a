import { type ConnectionOptions, type JobsOptions, Queue } from "bullmq";
import { Redis, type RedisOptions } from "ioredis";
import { z } from "zod";

/**
 * Jobs carry ids only; PostgreSQL holds a run's status and results. A job definition is the name
 * plus the payload schema that producers (enqueue) and the worker (processor) both validate with.
 */
export interface JobDef<S extends z.ZodType> {
  name: string;
  schema: S;
}

const defineJob = <S extends z.ZodType>(name: string, schema: S): JobDef<S> => ({ name, schema });

export const ZRunExecutePayload = z.object({ runId: z.string().min(1) });
export type TRunExecutePayload = z.infer<typeof ZRunExecutePayload>;

export const JOBS = {
  runExecute: defineJob("run.execute", ZRunExecutePayload),
} as const;

export const RUNS_QUEUE = "runs";
export const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";

/** Workers block on Redis: BullMQ requires `maxRetriesPerRequest: null` on their connections. */
export function workerConnection(redisUrl: string): Redis {
  return new Redis(redisUrl, { maxRetriesPerRequest: null });
}

/** Producers fail fast so a launch with Redis down errors instead of hanging. */
export function producerConnectionOptions(): RedisOptions {
  return { maxRetriesPerRequest: 1, connectTimeout: 3_000, enableOfflineQueue: true, lazyConnect: false };
}

export function createRunsQueue(redisUrl: string, prefix = "bull"): Queue {
  const connection = new Redis(redisUrl, producerConnectionOptions());
  // ioredis emits errors on reconnect attempts; they surface as failed enqueues instead.
  connection.on("error", () => {});
  const queue = new Queue(RUNS_QUEUE, { connection: connection as unknown as ConnectionOptions, prefix });
  queue.on("error", () => {});
  return queue;
}

export class EnqueueError extends Error {
  override name = "EnqueueError";
}

export async function enqueue<S extends z.ZodType>(
  queue: Queue,
  job: JobDef<S>,
  payload: z.input<S>,
  options: JobsOptions = {},
): Promise<string> {
  const data = job.schema.parse(payload);
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new EnqueueError("the job queue (Redis) did not answer within 5 s")), 5_000).unref(),
  );
  try {
    const added = await Promise.race([
      queue.add(job.name, data, { removeOnComplete: 1_000, removeOnFail: 5_000, attempts: 1, ...options }),
      timeout,
    ]);
    return added.id ?? "";
  } catch (err) {
    if (err instanceof EnqueueError) throw err;
    throw new EnqueueError(`could not enqueue ${job.name}: ${(err as Error).message}`);
  }
}
