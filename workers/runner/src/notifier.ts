import type { AllowList } from "@benchboard/core/address";
import {
  DELIVERY_MAX_ATTEMPTS,
  deliveriesToRequeue,
  deliveryOrgId,
  disableRefusedEndpoint,
  enabledNotificationReceivers,
  orgAllowList,
  planAgentOffline,
  planRunNotifications,
  planRunStarts,
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
import { DelayedError, type Job, Worker } from "bullmq";
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
  /** A load agent silent this long (without saying it stopped) is announced offline. */
  agentOfflineAfterMs?: number;
  /** Deliveries in flight at once on this worker, all organizations together. */
  concurrency?: number;
  /**
   * Deliveries of one organization in flight at once on this worker; the other slots stay free
   * for everyone else, so one organization's slow or failing receivers never delay another's.
   */
  perOrgConcurrency?: number;
  /** How long a delivery of an organization at its limit waits before it is looked at again. */
  deferMs?: number;
  /** How often stored endpoints are judged again by the address rule (also once at start). */
  recheckEveryMs?: number;
}

export const DEFAULT_NOTIFY_EVERY_MS = 2_000;
export const DEFAULT_RETRY_BASE_MS = 10_000;
export const DEFAULT_REQUEUE_GRACE_MS = 30_000;
export const DEFAULT_RECHECK_EVERY_MS = 60 * 60_000;
/** Deliveries wait on receivers, not on CPU: many can be in flight on one worker. */
export const DEFAULT_NOTIFY_CONCURRENCY = 16;
/** A quarter of the slots: four organizations with stuck receivers still leave room for a fifth. */
export const DEFAULT_PER_ORG_CONCURRENCY = 4;
export const DEFAULT_DEFER_MS = 250;

/**
 * Per-organization slots on one worker. A delivery job of an organization already at its limit
 * goes back to the queue (delayed, not failed: its attempts are not spent) instead of holding
 * one of the shared slots while it waits, so the next organization's job is taken at once.
 * Counted in this process only: the shared resource is this worker's slots, and a count that
 * lives with them cannot leak when a worker dies.
 */
export function orgSlots(limit: number) {
  const inFlight = new Map<string, number>();
  return {
    /** Take a slot for the organization, or false when it has `limit` in flight already. */
    take(orgId: string): boolean {
      const n = inFlight.get(orgId) ?? 0;
      if (n >= limit) return false;
      inFlight.set(orgId, n + 1);
      return true;
    },
    release(orgId: string) {
      const n = (inFlight.get(orgId) ?? 1) - 1;
      if (n <= 0) inFlight.delete(orgId);
      else inFlight.set(orgId, n);
    },
    inFlight: (orgId: string) => inFlight.get(orgId) ?? 0,
  };
}

/**
 * The notification side of a worker: plans what started and ended runs and silent workers and
 * agents have to tell, queues the deliveries, consumes the delivery queue, and puts back
 * deliveries that PostgreSQL says are due but the queue no longer holds (Redis restarted or
 * flushed).
 */
export async function startNotifier(options: NotifierOptions) {
  const retry = {
    attempts: options.maxAttempts ?? DELIVERY_MAX_ATTEMPTS,
    baseDelayMs: options.baseDelayMs ?? DEFAULT_RETRY_BASE_MS,
  };
  const deps: NotificationDeps = { ...options, maxAttempts: retry.attempts, baseDelayMs: retry.baseDelayMs };
  const queue = createNotificationsQueue(options.redisUrl, options.prefix);
  const concurrency = options.concurrency ?? DEFAULT_NOTIFY_CONCURRENCY;
  // One organization may never take every slot: at least one stays free for the others.
  const slots = orgSlots(
    Math.max(1, Math.min(options.perOrgConcurrency ?? DEFAULT_PER_ORG_CONCURRENCY, concurrency - 1)),
  );
  const deferMs = options.deferMs ?? DEFAULT_DEFER_MS;
  // A delivery's organization never changes; deferred jobs come back often, so it is looked up once.
  const orgOf = new Map<string, string>();
  const consumer = new Worker(
    NOTIFICATIONS_QUEUE,
    async (job: Job, token?: string) => {
      if (job.name !== JOBS.notificationDeliver.name) throw new Error(`unknown job ${job.name}`);
      const payload = JOBS.notificationDeliver.schema.parse(job.data);
      let orgId = orgOf.get(payload.deliveryId) ?? null;
      if (!orgId) {
        orgId = await deliveryOrgId(options.db, payload.deliveryId);
        if (orgId) {
          if (orgOf.size >= 10_000) orgOf.clear();
          orgOf.set(payload.deliveryId, orgId);
        }
      }
      // Gone from PostgreSQL: the handler finds nothing to claim and says so.
      if (!orgId) return handleNotificationDeliver(deps, payload);
      if (!slots.take(orgId)) {
        await job.moveToDelayed(Date.now() + deferMs + Math.floor(Math.random() * deferMs), token);
        throw new DelayedError();
      }
      try {
        return await handleNotificationDeliver(deps, payload);
      } finally {
        slots.release(orgId);
        orgOf.delete(payload.deliveryId);
      }
    },
    {
      connection: workerConnection(options.redisUrl),
      prefix: options.prefix,
      concurrency,
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
    // Starts before ends: a run that started and ended between two sweeps is told in that order.
    const started = await planRunStarts(options.db, { publicUrl: options.publicUrl });
    await queueThem(started.map((id) => ({ id })));
    const planned = await planRunNotifications(options.db, { publicUrl: options.publicUrl });
    await queueThem(planned.map((id) => ({ id })));
    const offline = await planWorkerOffline(options.db, {
      offlineAfterMs: options.workerOfflineAfterMs ?? WORKER_OFFLINE_NOTIFY_AFTER_MS,
    });
    await queueThem(offline.map((id) => ({ id })));
    const agentsOffline = await planAgentOffline(options.db, {
      ...(options.agentOfflineAfterMs !== undefined ? { offlineAfterMs: options.agentOfflineAfterMs } : {}),
    });
    await queueThem(agentsOffline.map((id) => ({ id })));
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
