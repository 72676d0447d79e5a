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
  return createNamedQueue(redisUrl, prefix, runsQueueName(label));
}

function createNamedQueue(redisUrl: string, prefix: string, name: string): Queue {
  const connection = new Redis(redisUrl, producerConnectionOptions());
  // ioredis emits errors on reconnect attempts; they surface as failed enqueues instead.
  connection.on("error", () => {});
  const queue = new Queue(name, { connection: connection as unknown as ConnectionOptions, prefix });
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

/** Returns the queue of that name, on the producer's Redis and prefix. */
export type QueueFor = (queueName: string) => Queue;

/** Where a run's jobs go: who may take them is decided by the queue alone. */
export interface RunRoute {
  id: string;
  orgId: string;
  shardCount: number;
  /** Install workers offering this label (null: any install worker). */
  workerLabel: string | null;
  /** The organization's agents offering this label; such runs never reach install workers. */
  agentLabel: string | null;
}

/**
 * The queue of an organization's agents offering a label. Install workers consume only `runs`
 * and `runs@<label>`, never this; and the organization is part of the name, so one
 * organization's agents never see another's runs.
 */
export function agentQueueName(orgId: string, label: string): string {
  return `agents.${orgId}.${label}`;
}

export function queueNameForRun(run: Pick<RunRoute, "orgId" | "workerLabel" | "agentLabel">): string {
  return run.agentLabel ? agentQueueName(run.orgId, run.agentLabel) : runsQueueName(run.workerLabel);
}

/**
 * Put a run on the queue its route names: one `run.execute` job, or one `run.shard` job per
 * shard (the shard rows must exist). Job ids are derived from the run, so a retried dispatch
 * does not queue the run twice.
 */
export async function dispatchRun(queueFor: QueueFor, run: RunRoute): Promise<void> {
  const queue = queueFor(queueNameForRun(run));
  if (run.shardCount <= 1) {
    await enqueue(queue, JOBS.runExecute, { runId: run.id }, { jobId: run.id });
    return;
  }
  for (let index = 0; index < run.shardCount; index++) {
    await enqueue(queue, JOBS.runShard, { runId: run.id, index }, { jobId: `${run.id}-shard-${index}` });
  }
}

/**
 * The one dispatch every launch path uses — tRPC, REST (and so the CLI), sweeps, a group's next
 * run and the watchdog — so a run reaches the queue its labels name whichever way it started.
 */
export function createDispatch(queueFor: QueueFor): (run: RunRoute) => Promise<void> {
  return (run) => dispatchRun(queueFor, run);
}

/** A cache of queues by name on one Redis, for producers. */
export function createQueueFor(
  redisUrl: string,
  prefix = "bull",
  base?: Queue,
): QueueFor & { closeAll(): Promise<void> } {
  const queues = new Map<string, Queue>();
  if (base) queues.set(base.name, base);
  const queueFor = ((name: string) => {
    let q = queues.get(name);
    if (!q) {
      q = createNamedQueue(redisUrl, prefix, name);
      queues.set(name, q);
    }
    return q;
  }) as QueueFor & { closeAll(): Promise<void> };
  queueFor.closeAll = async () => {
    await Promise.all([...queues.values()].filter((q) => q !== base).map((q) => q.close()));
  };
  return queueFor;
}

/**
 * The notifications queue on the same Redis connection and prefix as a runs queue the caller
 * already holds (the web app's), made once.
 */
export function notificationsQueueBeside(runsQueue: Queue): Queue {
  return queuesBeside(runsQueue)(NOTIFICATIONS_QUEUE);
}

const siblings = new WeakMap<Queue, Map<string, Queue>>();

/**
 * Queues of any name on the same connection and prefix as `base`: a process that was handed
 * only its default queue still routes labelled and agent runs to their own queues.
 */
export function queuesBeside(base: Queue): QueueFor {
  return (name) => {
    if (name === base.name) return base;
    let byName = siblings.get(base);
    if (!byName) {
      byName = new Map();
      siblings.set(base, byName);
    }
    let q = byName.get(name);
    if (!q) {
      q = new Queue(name, { connection: base.opts.connection, prefix: base.opts.prefix });
      q.on("error", () => {});
      byName.set(name, q);
    }
    return q;
  };
}

/** A job handed to an agent: which queue it came from, its id, and its validated payload. */
export type AgentJob =
  | { queue: string; id: string; name: "run.execute"; data: TRunExecutePayload }
  | { queue: string; id: string; name: "run.shard"; data: TRunShardPayload };

/**
 * Takes jobs from agent queues for the claim endpoint. A job taken is gone from Redis at once,
 * since from then on the run's row in PostgreSQL says who has it (and the watchdog ends it if
 * the agent dies); one the claim may not hand out after all is given back, first in line.
 */
export interface AgentJobTaker {
  /**
   * The next job on any of these queues, or null once `waitMs` passed (or `signal` aborted).
   * With `accept`, jobs it declines stay where they are, in their place in line, for another
   * taker (an agent whose limits the run does not fit leaves it to one it fits).
   */
  take(
    queueNames: string[],
    waitMs: number,
    signal?: AbortSignal,
    accept?: (job: AgentJob) => Promise<boolean>,
  ): Promise<AgentJob | null>;
  /** Put a taken job back at the head of its queue. */
  giveBack(job: AgentJob): Promise<void>;
  close(): Promise<void>;
}

const TAKE_POLL_MS = 200;
/** How far down a queue a taker with limits looks for a job it can run. */
const ACCEPT_SCAN = 200;
/** A queue no agent asked about for this long is forgotten (it holds no connection of its own). */
const TAKER_IDLE_MS = 120_000;

/**
 * Every claim, whatever its labels, shares one Redis connection: taking is a non-blocking pop of
 * the oldest waiting job id (atomic, so two claims never get the same job), and no BullMQ
 * worker — which holds two connections per queue — is ever made here. An agent's labels cost
 * commands, not connections.
 */
export function createAgentJobTaker(redisUrl: string, prefix = "bull"): AgentJobTaker {
  const connection = new Redis(redisUrl, producerConnectionOptions());
  // ioredis emits errors on reconnect attempts; they surface as failed takes instead.
  connection.on("error", () => {});
  const queues = new Map<string, { queue: Queue; usedAt: number }>();
  const queueFor = (name: string) => {
    let entry = queues.get(name);
    if (!entry) {
      const queue = new Queue(name, { connection: connection as unknown as ConnectionOptions, prefix });
      queue.on("error", () => {});
      entry = { queue, usedAt: Date.now() };
      queues.set(name, entry);
    }
    entry.usedAt = Date.now();
    return entry.queue;
  };
  const sweep = setInterval(() => {
    for (const [name, entry] of queues) {
      if (Date.now() - entry.usedAt > TAKER_IDLE_MS) {
        queues.delete(name);
        // A queue on a shared connection leaves the connection open when closed.
        void entry.queue.close().catch(() => {});
      }
    }
  }, TAKER_IDLE_MS);
  sweep.unref?.();

  /** The oldest waiting job of one queue, removed from Redis; null when there is none. */
  const takeFrom = async (name: string): Promise<AgentJob | null> => {
    const queue = queueFor(name);
    for (;;) {
      // BullMQ pushes new jobs on the left of the wait list; its own workers take from the right.
      const id = await connection.rpop(queue.keys.wait!);
      if (!id) return null;
      const job = await queue.getJob(id);
      await queue.remove(id).catch(() => {});
      const taken = asAgentJob(name, id, job);
      if (taken) return taken;
      // Not a run's job (or its data is gone): dropped, and the next one is looked at.
    }
  };

  /** A run's job from its id and BullMQ job, or null when it is not one (or its data is gone). */
  const asAgentJob = (name: string, id: string, job: { name: string; data: unknown } | undefined): AgentJob | null => {
    if (job?.name === JOBS.runExecute.name) {
      const data = JOBS.runExecute.schema.safeParse(job.data);
      if (data.success) return { queue: name, id, name: "run.execute", data: data.data };
    } else if (job?.name === JOBS.runShard.name) {
      const data = JOBS.runShard.schema.safeParse(job.data);
      if (data.success) return { queue: name, id, name: "run.shard", data: data.data };
    }
    return null;
  };

  /**
   * The oldest waiting job of one queue that `accept` takes, removed from Redis; the ones it
   * declines stay. Removing an id from the wait list is atomic (LREM answers 1 to one caller
   * only), so two claims never get the same job. `declined` remembers answers within one take.
   */
  const takeAcceptedFrom = async (
    name: string,
    accept: (job: AgentJob) => Promise<boolean>,
    declined: Set<string>,
  ): Promise<AgentJob | null> => {
    const queue = queueFor(name);
    const key = queue.keys.wait!;
    // Oldest last: BullMQ's workers take from the right.
    const ids = (await connection.lrange(key, -ACCEPT_SCAN, -1)).reverse();
    for (const id of ids) {
      if (declined.has(id)) continue;
      const job = asAgentJob(name, id, await queue.getJob(id));
      if (job && !(await accept(job))) {
        declined.add(id);
        continue;
      }
      const removed = await connection.lrem(key, 1, id);
      if (removed === 0) continue; // another claim took it meanwhile
      await queue.remove(id).catch(() => {});
      if (job) return job;
      // Not a run's job: dropped, as `takeFrom` does.
    }
    return null;
  };

  return {
    async take(queueNames, waitMs, signal, accept) {
      const until = Date.now() + waitMs;
      const declined = new Set<string>();
      for (;;) {
        for (const name of queueNames) {
          const job = accept ? await takeAcceptedFrom(name, accept, declined) : await takeFrom(name);
          if (job) return job;
        }
        if (signal?.aborted || Date.now() + TAKE_POLL_MS > until) return null;
        await new Promise((resolve) => setTimeout(resolve, TAKE_POLL_MS));
      }
    },
    async giveBack(job) {
      const def = job.name === "run.execute" ? JOBS.runExecute : JOBS.runShard;
      await enqueue(queueFor(job.queue), def, job.data as never, { jobId: job.id, lifo: true });
    },
    async close() {
      clearInterval(sweep);
      const all = [...queues.values()];
      queues.clear();
      await Promise.all(all.map((entry) => entry.queue.close().catch(() => {})));
      connection.disconnect();
    },
  };
}
