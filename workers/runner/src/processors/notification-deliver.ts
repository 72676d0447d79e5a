import { emailMessage, type InstallSettings } from "@benchboard/core";
import {
  type ClaimedDelivery,
  claimDelivery,
  type Db,
  disableRefusedEndpoint,
  isInstallOrganization,
  markAttemptFailed,
  markDelivered,
  memberEmails,
  orgAllowList,
} from "@benchboard/db";
import type { TNotificationDeliverPayload } from "@benchboard/jobs";
import { deliverNotification, tenantDeliveryError } from "@benchboard/loadgen/notify";
import type { Resolve, SafetyPolicy } from "@benchboard/loadgen/target-safety";

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
  /**
   * The install's mail (packages/api's mail module: SMTP, the mail file, or the log), for email
   * endpoints; without it an email delivery fails saying mail is not set up on the workers.
   */
  mailer?: NotificationMailer | null;
}

export interface NotificationMailer {
  readonly kind: string;
  send(message: { to: string; subject: string; text: string }): Promise<void>;
}

type Outcome = { ok: true; status: number | null } | { ok: false; status: null; error: string; permanent: boolean };

/**
 * One email attempt: to the recipients who are still members of the organization (the install's
 * own organization may send anywhere), through the install's mail server. What failed is said
 * without the server's answer or address (the mail module keeps only its codes).
 */
async function deliverEmail(deps: NotificationDeps, claimed: ClaimedDelivery, installOrg: boolean): Promise<Outcome> {
  if (!deps.mailer || deps.mailer.kind === "console") {
    return {
      ok: false,
      status: null,
      error: "mail is not set up on the workers (BENCHBOARD_SMTP_URL and BENCHBOARD_MAIL_FROM)",
      permanent: true,
    };
  }
  let recipients = claimed.recipients;
  if (!installOrg) {
    const members = await memberEmails(deps.db, claimed.orgId);
    recipients = recipients.filter((r) => members.has(r.toLowerCase()));
  }
  if (!recipients.length) {
    return {
      ok: false,
      status: null,
      error: "none of the recipients is a member of the organization any more",
      permanent: true,
    };
  }
  const { subject, text } = emailMessage(claimed.event);
  try {
    await deps.mailer.send({ to: recipients.join(", "), subject, text });
    return { ok: true, status: null };
  } catch (err) {
    return { ok: false, status: null, error: (err as Error).message.slice(0, 300), permanent: false };
  }
}

/** Thrown so BullMQ retries the job after its backoff; the attempt is already recorded. */
export class RetryDelivery extends Error {
  override name = "RetryDelivery";
}

/**
 * Where an organization's notifications may go: its own address rule, the one its targets,
 * monitors and config hooks get (the operator's whole allow-list for the install's own
 * organization, only what was opened to tenants for any other).
 */
export async function notificationPolicy(
  deps: Pick<NotificationDeps, "db" | "install" | "lookup">,
  orgId: string,
): Promise<SafetyPolicy> {
  return { allowList: await orgAllowList(deps.db, orgId, deps.install ?? undefined), resolve: deps.lookup };
}

/**
 * One delivery attempt. The row is claimed first (a duplicate job, one for a delivery already
 * done, or one whose endpoint was disabled meanwhile finds nothing to send), the address is
 * checked again now, and the outcome — the reason, never the receiver's body — is recorded
 * before the job ends. A tenant's record says what kind of failure and the status class, not the
 * exact status or the answer's size; a receiver the address rule refuses disables its endpoint.
 */
export async function handleNotificationDeliver(
  deps: NotificationDeps,
  payload: TNotificationDeliverPayload,
): Promise<"delivered" | "retry" | "failed" | "skipped"> {
  const claimed = await claimDelivery(deps.db, payload.deliveryId, deps.secretKey);
  if (!claimed) return "skipped";
  if (claimed.channel === "email") {
    const installOrg = await isInstallOrganization(deps.db, claimed.orgId);
    const started = performance.now();
    const outcome = await deliverEmail(deps, claimed, installOrg);
    const durationMs = performance.now() - started;
    if (outcome.ok) {
      await markDelivered(deps.db, claimed, null, new Date(), durationMs);
      return "delivered";
    }
    const { retryInMs, disabled } = await markAttemptFailed(
      deps.db,
      claimed,
      { status: null, error: outcome.error, permanent: outcome.permanent, durationMs },
      { baseDelayMs: deps.baseDelayMs, maxAttempts: deps.maxAttempts, disableAfter: deps.disableAfter },
    );
    deps.log(
      `notification ${claimed.event.kind} (${claimed.event.id}) email attempt ${claimed.attempt}: ${outcome.error}${retryInMs !== null ? `; again in ${retryInMs} ms` : "; given up"}${disabled ? "; endpoint disabled" : ""}`,
    );
    if (retryInMs !== null) throw new RetryDelivery(outcome.error);
    return "failed";
  }
  const policy = await notificationPolicy(deps, claimed.orgId);
  const started = performance.now();
  const outcome = await deliverNotification({ ...claimed, channel: claimed.channel }, policy, {
    timeoutMs: deps.timeoutMs,
  });
  const durationMs = performance.now() - started;
  if (outcome.ok) {
    await markDelivered(deps.db, claimed, outcome.status, new Date(), durationMs);
    return "delivered";
  }
  const installOrg = await isInstallOrganization(deps.db, claimed.orgId);
  const error = installOrg ? outcome.error : tenantDeliveryError(outcome);
  // Refused by the address rule: the endpoint goes off with that reason (before the failure is
  // counted, so the owners hear the reason once, not "failed N times").
  const refused =
    outcome.kind === "refused" && (await disableRefusedEndpoint(deps.db, claimed.orgId, claimed.endpointId, error));
  const { retryInMs, disabled } = await markAttemptFailed(
    deps.db,
    claimed,
    { status: outcome.status, error, permanent: outcome.permanent, durationMs },
    { baseDelayMs: deps.baseDelayMs, maxAttempts: deps.maxAttempts, disableAfter: deps.disableAfter },
  );
  deps.log(
    `notification ${claimed.event.kind} (${claimed.event.id}) attempt ${claimed.attempt}: ${outcome.error}${retryInMs !== null ? `; again in ${retryInMs} ms` : "; given up"}${disabled || refused ? "; endpoint disabled" : ""}`,
  );
  if (retryInMs !== null) throw new RetryDelivery(error);
  return "failed";
}
