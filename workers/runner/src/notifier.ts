import type { AllowList } from "@benchboard/core/address";
import {
  DELIVERY_MAX_ATTEMPTS,
  deliveriesToRequeue,
  disableRefusedEndpoint,
  enabledNotificationReceivers,
  orgAllowList,
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
import { judgeReceiver } from "@benchboard/loadgen/notify";
import { type Job, Worker } from "bullmq";
import { handleNotificationDeliver, type NotificationDeps } from "./processors/notification-deliver";

/**
 * Judge every enabled endpoint's receiver again by its organization's address rule, and disable
 * (telling the owners in the app) those it refuses now: endpoints saved under an earlier, wider
 * rule, or before the operator narrowed the allow-list, or whose name now resolves elsewhere.
 * A name that does not resolve at the moment is left alone (the next pass, or the next delivery,
 * judges it again). Nothing is sent to any receiver.
 */
export async function recheckNotificationEndpoints(
  deps: Pick<NotificationDeps, "db" | "install" | "lookup" | "log">,
  options: { stopped?: () => boolean } = {},
): Promise<{ checked: number; disabled: number }> {
  const lists = new Map<string, AllowList>();
  let checked = 0;
  let disabled = 0;
  let afterId: string | null = null;
  do {
    const page: Awaited<ReturnType<typeof enabledNotificationReceivers>> = await enabledNotificationReceivers(deps.db, {
      afterId,
    });
    for (const endpoint of page.receivers) {
      if (options.stopped?.()) return { checked, disabled };
      let allowList = lists.get(endpoint.orgId);
      if (!allowList) {
        allowList = await orgAllowList(deps.db, endpoint.orgId, deps.install ?? undefined);
        lists.set(endpoint.orgId, allowList);
      }
      checked++;
      // The origin is all the rule looks at (host and port), so no URL is decrypted here.
      const verdict = await judgeReceiver(endpoint.urlOrigin, { allowList, resolve: deps.lookup });
      if (verdict.allowed || verdict.unresolved) continue;
      if (await disableRefusedEndpoint(deps.db, endpoint.orgId, endpoint.id, verdict.reason)) {
        disabled++;
        deps.log(`notification endpoint ${endpoint.id} disabled: its receiver is refused (${verdict.reason})`);
      }
    }
    afterId = page.lastId;
  } while (afterId);
  return { checked, disabled };
}

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
  /** How often stored endpoints are judged again by the address rule (also once at start). */
  recheckEveryMs?: number;
}

export const DEFAULT_NOTIFY_EVERY_MS = 2_000;
export const DEFAULT_RETRY_BASE_MS = 10_000;
export const DEFAULT_REQUEUE_GRACE_MS = 30_000;
export const DEFAULT_RECHECK_EVERY_MS = 60 * 60_000;

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
  let checking: Promise<unknown> | null = null;
  let closed = false;
  const recheck = () => {
    checking ??= recheckNotificationEndpoints(deps, { stopped: () => closed })
      .catch((err: unknown) => options.log(`notification endpoint check: ${(err as Error).message}`))
      .finally(() => {
        checking = null;
      });
    return checking;
  };
  const recheckTimer = setInterval(recheck, options.recheckEveryMs ?? DEFAULT_RECHECK_EVERY_MS);
  recheckTimer.unref?.();
  void recheck();
  await consumer.waitUntilReady();

  return {
    queue,
    consumer,
    /** Queue deliveries recorded elsewhere (a "send test") without waiting for the sweep. */
    enqueue: queueThem,
    async close() {
      clearInterval(timer);
      clearInterval(recheckTimer);
      closed = true;
      await checking;
      await consumer.close();
      await queue.close();
    },
  };
}
