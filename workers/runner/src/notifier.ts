import {
  DELIVERY_MAX_ATTEMPTS,
  deliveriesToRequeue,
  planRunNotifications,
  planWorkerOffline,
  WORKER_OFFLINE_NOTIFY_AFTER_MS,
} from "@benchboard/db";
import {
  createNotificationsQueue,
  enqueueDeliveries,
  JOBS,
  NOTIFICATIONS_QUEUE,
  workerConnection,
} from "@benchboard/jobs";
import { type Job, Worker } from "bullmq";
import { handleNotificationDeliver, type NotificationDeps } from "./processors/notification-deliver";

export interface NotifierOptions extends Omit<NotificationDeps, "maxAttempts" | "baseDelayMs"> {
  redisUrl: string;
  prefix: string;
  /** The web app's public address, for links in messages. */
  publicUrl: string;
  /** How often ended runs are looked at and lost deliveries requeued. */
  everyMs?: number;
  baseDelayMs?: number;
  maxAttempts?: number;
  /** A due delivery is requeued from PostgreSQL when it is this late (the queue lost it). */
  requeueGraceMs?: number;
  workerOfflineAfterMs?: number;
  concurrency?: number;
}

export const DEFAULT_NOTIFY_EVERY_MS = 2_000;
export const DEFAULT_RETRY_BASE_MS = 10_000;
export const DEFAULT_REQUEUE_GRACE_MS = 30_000;

/**
 * The notification side of a worker: plans what ended runs and silent workers have to tell,
 * queues the deliveries, consumes the delivery queue, and puts back deliveries that PostgreSQL
 * says are due but the queue no longer holds (Redis restarted or flushed).
 */
export async function startNotifier(options: NotifierOptions) {
  const retry = {
    attempts: options.maxAttempts ?? DELIVERY_MAX_ATTEMPTS,
    baseDelayMs: options.baseDelayMs ?? DEFAULT_RETRY_BASE_MS,
  };
  const deps: NotificationDeps = { ...options, maxAttempts: retry.attempts, baseDelayMs: retry.baseDelayMs };
  const queue = createNotificationsQueue(options.redisUrl, options.prefix);
  const consumer = new Worker(
    NOTIFICATIONS_QUEUE,
    async (job: Job) => {
      if (job.name !== JOBS.notificationDeliver.name) throw new Error(`unknown job ${job.name}`);
      return handleNotificationDeliver(deps, JOBS.notificationDeliver.schema.parse(job.data));
    },
    {
      connection: workerConnection(options.redisUrl),
      prefix: options.prefix,
      concurrency: options.concurrency ?? 4,
      autorun: true,
    },
  );
  consumer.on("error", (err) => options.log(`notification queue error: ${err.message}`));

  const queueThem = async (deliveries: { id: string; attempts?: number }[]) => {
    if (!deliveries.length) return;
    try {
      await enqueueDeliveries(queue, deliveries, retry);
    } catch (err) {
      // PostgreSQL holds them; the requeue sweep tries again once the queue is back.
      options.log(`could not queue ${deliveries.length} notification(s): ${(err as Error).message}`);
    }
  };
  const graceMs = options.requeueGraceMs ?? DEFAULT_REQUEUE_GRACE_MS;
  const tick = async () => {
    const planned = await planRunNotifications(options.db, { publicUrl: options.publicUrl });
    await queueThem(planned.map((id) => ({ id })));
    const offline = await planWorkerOffline(options.db, {
      offlineAfterMs: options.workerOfflineAfterMs ?? WORKER_OFFLINE_NOTIFY_AFTER_MS,
    });
    await queueThem(offline.map((id) => ({ id })));
    await queueThem(await deliveriesToRequeue(options.db, new Date(Date.now() - graceMs)));
  };
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    tick()
      .catch((err: unknown) => options.log(`notifier: ${(err as Error).message}`))
      .finally(() => {
        busy = false;
      });
  }, options.everyMs ?? DEFAULT_NOTIFY_EVERY_MS);
  timer.unref?.();
  await consumer.waitUntilReady();

  return {
    queue,
    consumer,
    /** Queue deliveries recorded elsewhere (a "send test") without waiting for the sweep. */
    enqueue: queueThem,
    async close() {
      clearInterval(timer);
      await consumer.close();
      await queue.close();
    },
  };
}
