import type { InstallSettings } from "@benchboard/core";
import {
  claimDelivery,
  type Db,
  getInstallSettings,
  markAttemptFailed,
  markDelivered,
  orgLoadPolicy,
} from "@benchboard/db";
import type { TNotificationDeliverPayload } from "@benchboard/jobs";
import { deliverNotification, notificationSafetyPolicy } from "@benchboard/loadgen/notify";
import type { Resolve } from "@benchboard/loadgen/target-safety";

export interface NotificationDeps {
  db: Db;
  secretKey: Buffer | null;
  install: InstallSettings | null;
  log: (line: string) => void;
  /** First retry delay; each later one doubles (BullMQ's exponential backoff uses the same). */
  baseDelayMs: number;
  maxAttempts: number;
  disableAfter?: number;
  timeoutMs?: number;
  lookup?: Resolve;
}

/** Thrown so BullMQ retries the job after its backoff; the attempt is already recorded. */
export class RetryDelivery extends Error {
  override name = "RetryDelivery";
}

/**
 * One delivery attempt. The row is claimed first (a duplicate job, or one for a delivery already
 * done, finds nothing to do), the address is checked again now, and the outcome — status code or
 * the reason, never the receiver's body — is recorded before the job ends.
 */
export async function handleNotificationDeliver(
  deps: NotificationDeps,
  payload: TNotificationDeliverPayload,
): Promise<"delivered" | "retry" | "failed" | "skipped"> {
  const claimed = await claimDelivery(deps.db, payload.deliveryId, deps.secretKey);
  if (!claimed) return "skipped";
  const { installOrg } = await orgLoadPolicy(deps.db, claimed.orgId);
  const settings = await getInstallSettings(deps.db, deps.install ?? undefined);
  const policy = notificationSafetyPolicy(settings, { installOrg }, deps.lookup);
  const outcome = await deliverNotification(claimed, policy, { timeoutMs: deps.timeoutMs });
  if (outcome.ok) {
    await markDelivered(deps.db, claimed, outcome.status);
    return "delivered";
  }
  const { retryInMs, disabled } = await markAttemptFailed(deps.db, claimed, outcome, {
    baseDelayMs: deps.baseDelayMs,
    maxAttempts: deps.maxAttempts,
    disableAfter: deps.disableAfter,
  });
  deps.log(
    `notification ${claimed.event.kind} (${claimed.event.id}) attempt ${claimed.attempt}: ${outcome.error}${retryInMs !== null ? `; again in ${retryInMs} ms` : "; given up"}${disabled ? "; endpoint disabled" : ""}`,
  );
  if (retryInMs !== null) throw new RetryDelivery(outcome.error);
  return "failed";
}
