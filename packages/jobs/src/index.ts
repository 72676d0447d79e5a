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

export const ZRunShardPayload = z.object({ runId: z.string().min(1), index: z.number().int().min(0) });
export type TRunShardPayload = z.infer<typeof ZRunShardPayload>;

export const ZNotificationDeliverPayload = z.object({ deliveryId: z.string().min(1) });
export type TNotificationDeliverPayload = z.infer<typeof ZNotificationDeliverPayload>;

export const JOBS = {
  runExecute: defineJob("run.execute", ZRunExecutePayload),
  runShard: defineJob("run.shard", ZRunShardPayload),
  notificationDeliver: defineJob("notification.deliver", ZNotificationDeliverPayload),
} as const;

/** Notification deliveries have their own queue, so a slow receiver never holds up a run. */
export const NOTIFICATIONS_QUEUE = "notifications";

export function createNotificationsQueue(redisUrl: string, prefix = "bull"): Queue {
  const connection = new Redis(redisUrl, producerConnectionOptions());
  connection.on("error", () => {});
  const queue = new Queue(NOTIFICATIONS_QUEUE, { connection: connection as unknown as ConnectionOptions, prefix });
  queue.on("error", () => {});
  return queue;
}

/**
 * Queue deliveries (ids of rows in PostgreSQL). BullMQ retries a failed attempt with exponential
 * backoff; the job id carries the attempts made so far, so a delivery the requeue sweep puts back
 * after Redis lost it is not mistaken for the finished job of an earlier attempt.
 */
export async function enqueueDeliveries(
  queue: Queue,
  deliveries: { id: string; attempts?: number }[],
  retry: { attempts: number; baseDelayMs: number },
): Promise<void> {
  for (const d of deliveries) {
    await enqueue(
      queue,
      JOBS.notificationDeliver,
      { deliveryId: d.id },
      {
        jobId: `${d.id}-${d.attempts ?? 0}`,
        attempts: Math.max(1, retry.attempts - (d.attempts ?? 0)),
        backoff: { type: "exponential", delay: retry.baseDelayMs },
      },
    );
  }
}

export const RUNS_QUEUE = "runs";

/** A worker label (e.g. a region) names its own queue; runs that ask for it go there. */
export const ZWorkerLabel = z
  .string()
  .trim()
  .regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, "labels are lowercase letters, digits, . _ - (at most 63)");

export function runsQueueName(label?: string | null): string {
  return label ? `${RUNS_QUEUE}@${label}` : RUNS_QUEUE;
}
export const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";

/** Workers block on Redis: BullMQ requires `maxRetriesPerRequest: null` on their connections. */
export function workerConnection(redisUrl: string): Redis {
  return new Redis(redisUrl, { maxRetriesPerRequest: null });
}

/** Producers fail fast so a launch with Redis down errors instead of hanging. */
export function producerConnectionOptions(): RedisOptions {
  return { maxRetriesPerRequest: 1, connectTimeout: 3_000, enableOfflineQueue: true, lazyConnect: false };
}

export function createRunsQueue(redisUrl: string, prefix = "bull", label?: string | null): Queue {
  const connection = new Redis(redisUrl, producerConnectionOptions());
  // ioredis emits errors on reconnect attempts; they surface as failed enqueues instead.
  connection.on("error", () => {});
  const queue = new Queue(runsQueueName(label), { connection: connection as unknown as ConnectionOptions, prefix });
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

/** Returns the queue for a worker label (null: the default queue). */
export type QueueFor = (label: string | null) => Queue;

/**
 * Put a run on the queue its label names: one `run.execute` job, or one `run.shard` job per
 * shard (the shard rows must exist). Job ids are derived from the run, so a retried dispatch
 * does not queue the run twice.
 */
export async function dispatchRun(
  queueFor: QueueFor,
  run: { id: string; shardCount: number; workerLabel: string | null },
): Promise<void> {
  const queue = queueFor(run.workerLabel);
  if (run.shardCount <= 1) {
    await enqueue(queue, JOBS.runExecute, { runId: run.id }, { jobId: run.id });
    return;
  }
  for (let index = 0; index < run.shardCount; index++) {
    await enqueue(queue, JOBS.runShard, { runId: run.id, index }, { jobId: `${run.id}-shard-${index}` });
  }
}

/** A cache of queues by label on one Redis, for producers. */
export function createQueueFor(
  redisUrl: string,
  prefix = "bull",
  base?: Queue,
): QueueFor & { closeAll(): Promise<void> } {
  const queues = new Map<string, Queue>();
  if (base) queues.set(RUNS_QUEUE, base);
  const queueFor = ((label: string | null) => {
    const name = runsQueueName(label);
    let q = queues.get(name);
    if (!q) {
      q = createRunsQueue(redisUrl, prefix, label);
      queues.set(name, q);
    }
    return q;
  }) as QueueFor & { closeAll(): Promise<void> };
  queueFor.closeAll = async () => {
    await Promise.all([...queues.values()].filter((q) => q !== base).map((q) => q.close()));
  };
  return queueFor;
}

const notificationQueues = new WeakMap<Queue, Queue>();

/**
 * The notifications queue on the same Redis connection and prefix as a runs queue the caller
 * already holds (the web app's), made once.
 */
export function notificationsQueueBeside(runsQueue: Queue): Queue {
  let queue = notificationQueues.get(runsQueue);
  if (!queue) {
    queue = new Queue(NOTIFICATIONS_QUEUE, { connection: runsQueue.opts.connection, prefix: runsQueue.opts.prefix });
    queue.on("error", () => {});
    notificationQueues.set(runsQueue, queue);
  }
  return queue;
}
