import { randomBytes } from "node:crypto";
import {
  type NotificationChannelKind,
  type NotificationEnvelope,
  retryDelayMs,
  ruleMatches,
  statusClass,
  type TNotificationData,
  ZNotificationData,
} from "@benchboard/core";
import { canonicalOrigin } from "@benchboard/core/address";
import type { Db } from "../client";
import { ConflictError, NotFoundError } from "../errors";
import type { Prisma } from "../generated/prisma/client";
import { decryptSecret, encryptSecret } from "../secrets";

/**
 * Notification endpoints, rules, events and deliveries. PostgreSQL is the truth: an event and
 * its deliveries are written in one transaction, a delivery exists at most once per event and
 * endpoint, and the queue (Redis) only carries delivery ids — losing it loses nothing, the
 * requeue sweep puts due deliveries back.
 */

/** Attempts per delivery before it counts as failed. */
export const DELIVERY_MAX_ATTEMPTS = 5;
/** Deliveries in a row that failed every attempt before an endpoint is disabled. */
export const DISABLE_AFTER_FAILED_DELIVERIES = 5;
/** How long the previous secret keeps signing after a rotation. */
export const SECRET_ROTATION_OVERLAP_MS = 24 * 60 * 60_000;
/** A delivery claimed this long ago whose worker never finished it is tried again. */
export const SENDING_STALE_MS = 2 * 60_000;

const endpointContext = (orgId: string) => `notification-endpoint:${orgId}`;

/** A Standard Webhooks secret: `whsec_` and 32 random bytes in base64. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

const ENDPOINT_LIST_SELECT = {
  id: true,
  name: true,
  channel: true,
  urlOrigin: true,
  recipients: true,
  enabled: true,
  consecutiveFailures: true,
  disabledAt: true,
  disabledReason: true,
  previousSecretUntil: true,
  createdAt: true,
} as const;

export async function listNotificationEndpoints(db: Db, orgId: string) {
  const rows = await db.notificationEndpoint.findMany({
    where: { orgId },
    orderBy: { createdAt: "asc" },
    select: { ...ENDPOINT_LIST_SELECT, secretEnc: true },
  });
  return rows.map(({ secretEnc, ...r }) => ({ ...r, signed: secretEnc !== null }));
}

export interface CreateEndpointInput {
  name: string;
  channel: NotificationChannelKind;
  /** The receiver's URL; email endpoints have recipients instead. */
  url?: string | null;
  /** Email only: the addresses (validated and lowercased by the caller). */
  recipients?: string[] | null;
  createdById?: string | null;
}

/** What an endpoint stores for its receiver: the URL (or the recipients) encrypted, and its origin. */
function receiverColumns(
  orgId: string,
  channel: NotificationChannelKind,
  input: { url?: string | null; recipients?: string[] | null },
  secretKey: Buffer | null | undefined,
) {
  if (channel === "email") {
    const recipients = input.recipients ?? [];
    if (!recipients.length) throw new ConflictError("recipients", "add at least one recipient");
    if (input.url) throw new ConflictError("url", "an email endpoint has recipients, not a URL");
    return {
      urlEnc: encryptSecret(secretKey, `mailto:${recipients.join(",")}`, endpointContext(orgId)),
      urlOrigin: "mailto:",
      recipients,
    };
  }
  if (input.recipients?.length) {
    throw new ConflictError("recipients", "only email endpoints have recipients; this one has a URL");
  }
  const origin = input.url ? canonicalOrigin(input.url) : null;
  if (!input.url || !origin) throw new ConflictError("url", "the receiver must be an http:// or https:// URL");
  return { urlEnc: encryptSecret(secretKey, input.url, endpointContext(orgId)), urlOrigin: origin, recipients: [] };
}

/** The organization's members' addresses, lowercased: who an email endpoint may send to. */
export async function memberEmails(db: Db, orgId: string): Promise<Set<string>> {
  const rows = await db.membership.findMany({ where: { orgId }, select: { user: { select: { email: true } } } });
  return new Set(rows.map((r) => r.user.email.toLowerCase()));
}

/**
 * Store an endpoint; the URL is encrypted (Slack and Teams URLs are credentials). A webhook gets
 * a signing secret, returned here once and never again.
 */
/** A Standard Webhooks secret given by the caller: `whsec_` and 24 to 64 random bytes in base64. */
const WEBHOOK_SECRET = /^whsec_[A-Za-z0-9+/]{32,86}={0,2}$/;

export function isWebhookSecret(value: string): boolean {
  if (!WEBHOOK_SECRET.test(value)) return false;
  const bytes = Buffer.from(value.slice("whsec_".length), "base64").length;
  return bytes >= 24 && bytes <= 64;
}

export async function createNotificationEndpoint(
  db: Db,
  orgId: string,
  input: CreateEndpointInput & {
    /** A webhook's signing secret chosen by the caller (from configuration as code); else one is made. */
    secret?: string | null;
  },
  secretKey: Buffer | null | undefined,
) {
  const receiver = receiverColumns(orgId, input.channel, input, secretKey);
  if (input.secret && input.channel !== "webhook") {
    throw new ConflictError("secret", "only webhook endpoints are signed; a Slack or Teams endpoint takes no secret");
  }
  if (input.secret && !isWebhookSecret(input.secret)) {
    throw new ConflictError("secret", "must be whsec_ followed by 24 to 64 bytes in base64");
  }
  const secret = input.channel === "webhook" ? (input.secret ?? newWebhookSecret()) : null;
  const endpoint = await db.notificationEndpoint.create({
    data: {
      orgId,
      name: input.name,
      channel: input.channel,
      ...receiver,
      secretEnc: secret ? encryptSecret(secretKey, secret, endpointContext(orgId)) : null,
      createdById: input.createdById ?? null,
    },
    select: ENDPOINT_LIST_SELECT,
  });
  return { endpoint, secret };
}

/** A new signing secret, shown once; the old one keeps signing beside it for a day. */
export async function rotateNotificationSecret(
  db: Db,
  orgId: string,
  id: string,
  secretKey: Buffer | null | undefined,
  now = new Date(),
) {
  const row = await db.notificationEndpoint.findFirst({ where: { orgId, id }, select: { secretEnc: true } });
  if (!row) throw new NotFoundError("id", "endpoint not found");
  if (!row.secretEnc) throw new ConflictError("id", "only webhook endpoints are signed; this one has no secret");
  const secret = newWebhookSecret();
  await db.notificationEndpoint.update({
    where: { id },
    data: {
      secretEnc: encryptSecret(secretKey, secret, endpointContext(orgId)),
      previousSecretEnc: row.secretEnc,
      previousSecretUntil: new Date(now.getTime() + SECRET_ROTATION_OVERLAP_MS),
    },
  });
  return { secret };
}

/**
 * Rename an endpoint or point it at another receiver (the URL is replaced, never compared: it is
 * a credential). A webhook may be given a new signing secret too; the old one stops signing.
 */
export async function updateNotificationEndpoint(
  db: Db,
  orgId: string,
  id: string,
  input: { name?: string; url?: string; recipients?: string[]; secret?: string },
  secretKey: Buffer | null | undefined,
) {
  const row = await db.notificationEndpoint.findFirst({ where: { orgId, id }, select: { channel: true } });
  if (!row) throw new NotFoundError("id", "endpoint not found");
  const data: Prisma.NotificationEndpointUpdateInput = {};
  if (input.name !== undefined) data.name = input.name;
  if (input.url !== undefined || input.recipients !== undefined) {
    Object.assign(data, receiverColumns(orgId, row.channel, input, secretKey));
  }
  if (input.secret !== undefined) {
    if (row.channel !== "webhook") {
      throw new ConflictError("secret", "only webhook endpoints are signed; a Slack or Teams endpoint takes no secret");
    }
    if (!isWebhookSecret(input.secret)) {
      throw new ConflictError("secret", "must be whsec_ followed by 24 to 64 bytes in base64");
    }
    data.secretEnc = encryptSecret(secretKey, input.secret, endpointContext(orgId));
    data.previousSecretEnc = null;
    data.previousSecretUntil = null;
  }
  return db.notificationEndpoint.update({ where: { id }, data, select: ENDPOINT_LIST_SELECT });
}

/** One endpoint as the list shows it. */
export async function notificationEndpointById(db: Db, orgId: string, id: string) {
  const row = await db.notificationEndpoint.findFirst({
    where: { orgId, id },
    select: { ...ENDPOINT_LIST_SELECT, secretEnc: true },
  });
  if (!row) throw new NotFoundError("id", "endpoint not found");
  const { secretEnc, ...rest } = row;
  return { ...rest, signed: secretEnc !== null };
}

export async function setNotificationEndpointEnabled(db: Db, orgId: string, id: string, enabled: boolean) {
  const { count } = await db.notificationEndpoint.updateMany({
    where: { orgId, id },
    data: enabled
      ? { enabled: true, consecutiveFailures: 0, disabledAt: null, disabledReason: null }
      : { enabled: false, disabledAt: new Date(), disabledReason: "disabled by a member" },
  });
  if (!count) throw new NotFoundError("id", "endpoint not found");
}

/**
 * One endpoint's receiver origin (`scheme://host:port`, kept in clear beside the encrypted URL):
 * all the address rule judges, so an endpoint is judged again without decrypting its URL.
 */
export async function notificationEndpointReceiver(db: Db, orgId: string, id: string) {
  const row = await db.notificationEndpoint.findFirst({
    where: { orgId, id },
    select: { id: true, name: true, enabled: true, channel: true, urlOrigin: true, recipients: true },
  });
  if (!row) throw new NotFoundError("id", "endpoint not found");
  return row;
}

/**
 * Enabled endpoints' receiver origins, a page at a time (by id; `lastId` is where the next page
 * starts, null after the last), for the pass that judges stored endpoints again.
 */
export async function enabledNotificationReceivers(db: Db, options: { afterId?: string | null; take?: number } = {}) {
  const take = options.take ?? 200;
  const receivers = await db.notificationEndpoint.findMany({
    // Email goes through the operator's mail server, which no address rule judges.
    where: { enabled: true, channel: { not: "email" }, ...(options.afterId ? { id: { gt: options.afterId } } : {}) },
    orderBy: { id: "asc" },
    take,
    select: { id: true, orgId: true, name: true, urlOrigin: true },
  });
  return { receivers, lastId: receivers.length === take ? receivers[receivers.length - 1]!.id : null };
}

/**
 * Disable an endpoint the address rule refuses, and tell the organization's owners in the app.
 * Only an enabled endpoint is changed, so judging it again says nothing twice. True when this
 * call disabled it.
 */
export async function disableRefusedEndpoint(
  db: Db,
  orgId: string,
  endpointId: string,
  refusal: string,
  now = new Date(),
): Promise<boolean> {
  const reason = `the install's address rule refuses its receiver: ${refusal.replace(/^refused: /, "")}`.slice(0, 500);
  return db.$transaction(async (tx) => {
    const { count } = await tx.notificationEndpoint.updateMany({
      where: { orgId, id: endpointId, enabled: true },
      data: { enabled: false, disabledAt: now, disabledReason: reason },
    });
    if (!count) return false;
    const endpoint = await tx.notificationEndpoint.findUniqueOrThrow({
      where: { id: endpointId },
      select: { name: true },
    });
    await tx.orgNotice.create({
      data: {
        orgId,
        kind: "notification.endpoint_refused",
        message: `Notification endpoint "${endpoint.name}" was disabled: ${reason}. Point it at a receiver this install allows (Settings → Notifications), then enable it again.`,
      },
    });
    return true;
  });
}

export async function deleteNotificationEndpoint(db: Db, orgId: string, id: string) {
  const { count } = await db.notificationEndpoint.deleteMany({ where: { orgId, id } });
  if (!count) throw new NotFoundError("id", "endpoint not found");
}

// ---- rules ---------------------------------------------------------------------------------

export interface RuleInput {
  name: string;
  events: string[];
  projectId?: string | null;
  scenarioId?: string | null;
  endpointIds: string[];
  baselineBranch?: string;
  tolerancePct?: number;
}

async function assertRuleRefs(db: Db, orgId: string, input: RuleInput) {
  if (input.projectId) {
    const p = await db.project.findFirst({ where: { orgId, id: input.projectId }, select: { id: true } });
    if (!p) throw new NotFoundError("projectId", "project not found");
  }
  if (input.scenarioId) {
    const s = await db.scenario.findFirst({ where: { orgId, id: input.scenarioId }, select: { projectId: true } });
    if (!s) throw new NotFoundError("scenarioId", "scenario not found");
    if (input.projectId && s.projectId !== input.projectId)
      throw new ConflictError("scenarioId", "the scenario belongs to another project");
  }
  const found = await db.notificationEndpoint.count({ where: { orgId, id: { in: input.endpointIds } } });
  if (found !== new Set(input.endpointIds).size) throw new NotFoundError("endpointIds", "endpoint not found");
}

export async function createNotificationRule(db: Db, orgId: string, input: RuleInput) {
  await assertRuleRefs(db, orgId, input);
  return db.notificationRule.create({
    data: {
      orgId,
      name: input.name,
      events: input.events,
      projectId: input.projectId ?? null,
      scenarioId: input.scenarioId ?? null,
      baselineBranch: input.baselineBranch ?? "main",
      tolerancePct: input.tolerancePct ?? 5,
      endpoints: { create: [...new Set(input.endpointIds)].map((endpointId) => ({ endpointId })) },
    },
    select: { id: true },
  });
}

/** Replace what a rule says; the fields not given keep their values. */
export async function updateNotificationRule(
  db: Db,
  orgId: string,
  id: string,
  input: Partial<RuleInput> & { enabled?: boolean },
) {
  const stored = await db.notificationRule.findFirst({
    where: { orgId, id },
    include: { endpoints: { select: { endpointId: true } } },
  });
  if (!stored) throw new NotFoundError("id", "rule not found");
  const merged: RuleInput = {
    name: input.name ?? stored.name,
    events: input.events ?? stored.events,
    projectId: input.projectId !== undefined ? input.projectId : stored.projectId,
    scenarioId: input.scenarioId !== undefined ? input.scenarioId : stored.scenarioId,
    endpointIds: input.endpointIds ?? stored.endpoints.map((e) => e.endpointId),
    baselineBranch: input.baselineBranch ?? stored.baselineBranch,
    tolerancePct: input.tolerancePct ?? stored.tolerancePct,
  };
  await assertRuleRefs(db, orgId, merged);
  return db.notificationRule.update({
    where: { id },
    data: {
      name: merged.name,
      events: merged.events,
      projectId: merged.projectId ?? null,
      scenarioId: merged.scenarioId ?? null,
      baselineBranch: merged.baselineBranch ?? "main",
      tolerancePct: merged.tolerancePct ?? 5,
      ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
      ...(input.endpointIds
        ? {
            endpoints: {
              deleteMany: {},
              create: [...new Set(input.endpointIds)].map((endpointId) => ({ endpointId })),
            },
          }
        : {}),
    },
    select: { id: true },
  });
}

export async function deleteNotificationRule(db: Db, orgId: string, id: string) {
  const { count } = await db.notificationRule.deleteMany({ where: { orgId, id } });
  if (!count) throw new NotFoundError("id", "rule not found");
}

export async function listNotificationRules(db: Db, orgId: string) {
  const rows = await db.notificationRule.findMany({
    where: { orgId },
    orderBy: { createdAt: "asc" },
    include: { endpoints: { select: { endpointId: true } } },
  });
  return rows.map(({ endpoints, orgId: _o, ...r }) => ({ ...r, endpointIds: endpoints.map((e) => e.endpointId) }));
}

/**
 * The delivery log: time, event, endpoint, status class, attempts; never a receiver's body. The
 * exact status and the error's detail (status and size of the answer) are the install's own
 * organization's (`detail`); a tenant gets delivered / failed and the class ("4xx"), which is
 * all it needs to fix its receiver and no fingerprint of what answered.
 */
export async function listNotificationDeliveries(db: Db, orgId: string, take = 50, options: { detail?: boolean } = {}) {
  const rows = await db.notificationDelivery.findMany({
    where: { orgId },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: Math.min(take, 200),
    select: {
      id: true,
      status: true,
      attempts: true,
      lastStatus: true,
      lastError: true,
      createdAt: true,
      deliveredAt: true,
      nextAttemptAt: true,
      event: { select: { id: true, kind: true, payload: true } },
      endpoint: { select: { id: true, name: true, channel: true } },
      attemptLog: {
        orderBy: [{ attempt: "asc" }, { createdAt: "asc" }],
        select: { attempt: true, outcome: true, status: true, error: true, durationMs: true, createdAt: true },
      },
    },
  });
  return rows.map((r) => ({
    id: r.id,
    status: r.status,
    attempts: r.attempts,
    statusClass: statusClass(r.lastStatus),
    lastStatus: options.detail ? r.lastStatus : null,
    lastError: options.detail ? r.lastError : tenantError(r),
    createdAt: r.createdAt,
    deliveredAt: r.deliveredAt,
    nextAttemptAt: r.status === "pending" ? r.nextAttemptAt : null,
    eventId: r.event.id,
    kind: r.event.kind,
    title: ZNotificationData.safeParse(r.event.payload).data?.title ?? r.event.kind,
    endpoint: r.endpoint,
    /** Every attempt, first to last, told like the delivery itself (a tenant reads classes). */
    attemptLog: r.attemptLog.map((a) => ({
      attempt: a.attempt,
      outcome: a.outcome,
      at: a.createdAt,
      durationMs: a.durationMs,
      statusClass: statusClass(a.status),
      status: options.detail ? a.status : null,
      error:
        a.outcome === "delivered"
          ? null
          : options.detail
            ? a.error
            : tenantError({ lastStatus: a.status, lastError: a.error }),
    })),
  }));
}

/**
 * A stored error as a tenant reads it. Attempts that got an answer are told by its class; the
 * others were stored in words that carry no status or size (see the delivery processor), except
 * rows written before that rule, whose sizes are dropped here.
 */
function tenantError(row: { lastStatus: number | null; lastError: string | null }): string | null {
  const cls = statusClass(row.lastStatus);
  if (cls) return `the receiver answered ${cls}`;
  if (row.lastError && /\d+ bytes/.test(row.lastError)) return "the receiver's answer was not accepted";
  return row.lastError;
}

// ---- events ---------------------------------------------------------------------------------

export interface NewEvent {
  kind: string;
  /** Unique within the organization: the same key twice is the same event (recorded once). */
  dedupeKey: string;
  data: TNotificationData;
}

/** Event ids are stable for a key, so a replayed planning step cannot mint a second event. */
function eventId(): string {
  return `evt_${randomBytes(12).toString("base64url")}`;
}

/**
 * Record events and one delivery per (event, endpoint) in the caller's transaction. An event
 * whose key was already recorded is skipped, and so are its deliveries: at most once. A disabled
 * endpoint gets its delivery too, recorded `skipped` with the reason and never sent, so the log
 * shows what it missed. Returns the deliveries to send.
 */
export async function insertEvents(
  tx: Prisma.TransactionClient,
  orgId: string,
  events: { event: NewEvent; endpointIds: string[] }[],
  now = new Date(),
): Promise<string[]> {
  const deliveryIds: string[] = [];
  for (const { event, endpointIds } of events) {
    if (!endpointIds.length) continue;
    const inserted = await tx.$queryRaw<{ id: string }[]>`
      INSERT INTO "NotificationEvent" (id, "orgId", kind, "dedupeKey", payload, "createdAt")
      VALUES (${eventId()}, ${orgId}, ${event.kind}, ${event.dedupeKey}, ${JSON.stringify(event.data)}::jsonb, ${now})
      ON CONFLICT ("orgId", "dedupeKey") DO NOTHING
      RETURNING id`;
    const id = inserted[0]?.id;
    if (!id) continue;
    const ids = [...new Set(endpointIds)];
    const disabled = new Set(
      (
        await tx.notificationEndpoint.findMany({
          where: { orgId, id: { in: ids }, enabled: false },
          select: { id: true },
        })
      ).map((e) => e.id),
    );
    for (const endpointId of ids) {
      const skipped = disabled.has(endpointId);
      const d = await tx.notificationDelivery.create({
        data: {
          orgId,
          eventId: id,
          endpointId,
          nextAttemptAt: now,
          ...(skipped ? { status: "skipped", lastError: SKIPPED_DISABLED } : {}),
        },
        select: { id: true },
      });
      if (!skipped) deliveryIds.push(d.id);
    }
  }
  return deliveryIds;
}

/**
 * The endpoints of enabled rules that want this kind in this scope, disabled ones included:
 * `insertEvents` records their deliveries as skipped.
 */
export async function endpointsFor(
  db: Db | Prisma.TransactionClient,
  orgId: string,
  kind: string,
  scope: { projectId: string | null; scenarioId: string | null },
) {
  const rules = await db.notificationRule.findMany({
    where: { orgId, enabled: true, events: { has: kind } },
    include: { endpoints: { select: { endpointId: true } } },
  });
  return rules
    .filter((r) => ruleMatches(r, kind, scope))
    .map((r) => ({ rule: r, endpointIds: r.endpoints.map((e) => e.endpointId) }));
}

/**
 * Record an event that is not about a run (a worker or agent offline): to every endpoint a rule
 * sends this kind to. Returns the deliveries to queue.
 */
export async function recordNotificationEvent(
  db: Db,
  orgId: string,
  event: NewEvent,
  scope: { projectId: string | null; scenarioId: string | null } = { projectId: null, scenarioId: null },
): Promise<string[]> {
  return db.$transaction(async (tx) => {
    const targets = await endpointsFor(tx, orgId, event.kind, scope);
    const endpointIds = [...new Set(targets.flatMap((t) => t.endpointIds))];
    return insertEvents(tx, orgId, [{ event, endpointIds }]);
  });
}

/** A test event to one endpoint, from Settings ("send test"); a disabled endpoint gets nothing. */
export async function recordTestEvent(db: Db, orgId: string, endpointId: string, data: TNotificationData) {
  const endpoint = await db.notificationEndpoint.findFirst({
    where: { orgId, id: endpointId },
    select: { id: true, enabled: true },
  });
  if (!endpoint) throw new NotFoundError("id", "endpoint not found");
  if (!endpoint.enabled)
    throw new ConflictError("id", "this endpoint is disabled; enable it before sending a test to it");
  return db.$transaction((tx) =>
    insertEvents(tx, orgId, [
      {
        event: { kind: "notification.test", dedupeKey: `notification.test:${randomBytes(9).toString("hex")}`, data },
        endpointIds: [endpointId],
      },
    ]),
  );
}

// ---- delivery -------------------------------------------------------------------------------

export interface ClaimedDelivery {
  id: string;
  orgId: string;
  endpointId: string;
  attempt: number;
  channel: NotificationChannelKind;
  url: string;
  /** Email only: the addresses to send to. */
  recipients: string[];
  /** Secrets that sign this attempt: the current one, and the previous during a rotation. */
  secrets: string[];
  event: NotificationEnvelope;
}

/** The organization a delivery belongs to (null when it no longer exists). */
export async function deliveryOrgId(db: Db, id: string): Promise<string | null> {
  const row = await db.notificationDelivery.findUnique({ where: { id }, select: { orgId: true } });
  return row?.orgId ?? null;
}

/** Why a delivery was not sent: its endpoint was disabled after the delivery was recorded. */
export const SKIPPED_DISABLED = "not sent: the endpoint is disabled";

/**
 * Take a delivery for one attempt: only a pending one that is due (or a `sending` one whose
 * worker vanished), counting the attempt. Null when it is done, not due, or another worker has
 * it — which is what makes a duplicated job harmless. A delivery to an endpoint disabled since
 * it was recorded (by a member, by failures, or by the address rule) is never sent: it ends
 * `skipped`, with the reason in the log, and is not tried again.
 */
export async function claimDelivery(
  db: Db,
  id: string,
  secretKey: Buffer | null | undefined,
  now = new Date(),
): Promise<ClaimedDelivery | null> {
  const staleSending = new Date(now.getTime() - SENDING_STALE_MS);
  const claimable = {
    id,
    OR: [
      { status: "pending", nextAttemptAt: { lte: now } },
      { status: "sending", updatedAt: { lt: staleSending } },
    ],
  };
  const { count } = await db.notificationDelivery.updateMany({
    where: { ...claimable, endpoint: { is: { enabled: true } } },
    data: { status: "sending", attempts: { increment: 1 } },
  });
  if (!count) {
    await db.notificationDelivery.updateMany({
      where: { ...claimable, endpoint: { is: { enabled: false } } },
      data: { status: "skipped", lastStatus: null, lastError: SKIPPED_DISABLED, nextAttemptAt: now },
    });
    return null;
  }
  const row = await db.notificationDelivery.findUniqueOrThrow({
    where: { id },
    include: { event: true, endpoint: true },
  });
  const ctx = endpointContext(row.orgId);
  const secrets: string[] = [];
  if (row.endpoint.secretEnc) secrets.push(decryptSecret(secretKey, row.endpoint.secretEnc, ctx));
  if (row.endpoint.previousSecretEnc && row.endpoint.previousSecretUntil && row.endpoint.previousSecretUntil > now) {
    secrets.push(decryptSecret(secretKey, row.endpoint.previousSecretEnc, ctx));
  }
  return {
    id,
    orgId: row.orgId,
    endpointId: row.endpointId,
    attempt: row.attempts,
    channel: row.endpoint.channel,
    url: decryptSecret(secretKey, row.endpoint.urlEnc, ctx),
    recipients: row.endpoint.recipients,
    secrets,
    event: {
      id: row.event.id,
      kind: row.event.kind,
      occurredAt: row.event.createdAt,
      data: ZNotificationData.parse(row.event.payload),
    },
  };
}

/** One attempt as the delivery log keeps it (every attempt, not only the last). */
function attemptRow(
  delivery: ClaimedDelivery,
  outcome: "delivered" | "failed" | "retry",
  status: number | null,
  error: string | null,
  durationMs: number | undefined,
  now: Date,
) {
  return {
    orgId: delivery.orgId,
    deliveryId: delivery.id,
    attempt: delivery.attempt,
    outcome,
    status,
    error,
    durationMs: Math.max(0, Math.round(durationMs ?? 0)),
    createdAt: now,
  };
}

export async function markDelivered(
  db: Db,
  delivery: ClaimedDelivery,
  /** The receiver's HTTP status; null for email, which the mail server took. */
  status: number | null,
  now = new Date(),
  durationMs?: number,
) {
  await db.$transaction([
    db.notificationDelivery.update({
      where: { id: delivery.id },
      data: { status: "delivered", lastStatus: status, lastError: null, deliveredAt: now },
    }),
    db.notificationDeliveryAttempt.create({
      data: attemptRow(delivery, "delivered", status, null, durationMs, now),
    }),
    db.notificationEndpoint.updateMany({
      where: { deliveries: { some: { id: delivery.id } } },
      data: { consecutiveFailures: 0 },
    }),
  ]);
}

export interface FailedAttempt {
  status: number | null;
  /** What went wrong, without the receiver's body (status and size, or the refusal). */
  error: string;
  /** A refusal by the address rules is not retried: the address will not become allowed by waiting. */
  permanent: boolean;
  /** How long the attempt took, for the delivery log. */
  durationMs?: number;
}

/**
 * Record a failed attempt. Returns when to try again, or null when the delivery is given up;
 * then the endpoint's count of failed deliveries grows, and at the limit it is disabled and
 * the organization's owners are told in the app.
 */
export async function markAttemptFailed(
  db: Db,
  delivery: ClaimedDelivery,
  failure: FailedAttempt,
  options: { baseDelayMs: number; maxAttempts?: number; disableAfter?: number; now?: Date },
): Promise<{ retryInMs: number | null; disabled: boolean }> {
  const now = options.now ?? new Date();
  const maxAttempts = options.maxAttempts ?? DELIVERY_MAX_ATTEMPTS;
  const error = failure.error.slice(0, 500);
  if (!failure.permanent && delivery.attempt < maxAttempts) {
    const retryInMs = retryDelayMs(delivery.attempt, options.baseDelayMs);
    await db.$transaction([
      db.notificationDelivery.update({
        where: { id: delivery.id },
        data: {
          status: "pending",
          lastStatus: failure.status,
          lastError: error,
          nextAttemptAt: new Date(now.getTime() + retryInMs),
        },
      }),
      db.notificationDeliveryAttempt.create({
        data: attemptRow(delivery, "retry", failure.status, error, failure.durationMs, now),
      }),
    ]);
    return { retryInMs, disabled: false };
  }
  return db.$transaction(async (tx) => {
    const row = await tx.notificationDelivery.update({
      where: { id: delivery.id },
      data: { status: "failed", lastStatus: failure.status, lastError: error },
      select: { endpointId: true, endpoint: { select: { name: true } } },
    });
    await tx.notificationDeliveryAttempt.create({
      data: attemptRow(delivery, "failed", failure.status, error, failure.durationMs, now),
    });
    // A test delivery does not count against the endpoint.
    if (delivery.event.kind === "notification.test") return { retryInMs: null, disabled: false };
    const endpoint = await tx.notificationEndpoint.update({
      where: { id: row.endpointId },
      data: { consecutiveFailures: { increment: 1 } },
      select: { consecutiveFailures: true, enabled: true },
    });
    const limit = options.disableAfter ?? DISABLE_AFTER_FAILED_DELIVERIES;
    if (!endpoint.enabled || endpoint.consecutiveFailures < limit) return { retryInMs: null, disabled: false };
    const reason = `${endpoint.consecutiveFailures} deliveries in a row failed (last: ${error})`;
    await tx.notificationEndpoint.update({
      where: { id: row.endpointId },
      data: { enabled: false, disabledAt: now, disabledReason: reason },
    });
    await tx.orgNotice.create({
      data: {
        orgId: delivery.orgId,
        kind: "notification.endpoint_disabled",
        message: `Notification endpoint "${row.endpoint.name}" was disabled: ${reason}. Fix the receiver and enable it again in Settings → Notifications.`,
      },
    });
    return { retryInMs: null, disabled: true };
  });
}

/**
 * Deliveries the queue should hold but may not (Redis restarted, a job lost, a worker killed
 * mid-send): pending ones that are due, and `sending` ones whose worker went quiet.
 */
export async function deliveriesToRequeue(db: Db, now = new Date(), take = 200) {
  const rows = await db.notificationDelivery.findMany({
    where: {
      OR: [
        { status: "pending", nextAttemptAt: { lte: now } },
        { status: "sending", updatedAt: { lt: new Date(now.getTime() - SENDING_STALE_MS) } },
      ],
    },
    orderBy: { nextAttemptAt: "asc" },
    take,
    select: { id: true, attempts: true },
  });
  return rows;
}

/** Unread notices for the organization's owners (newest first). */
export async function listOrgNotices(db: Db, orgId: string) {
  return db.orgNotice.findMany({
    where: { orgId, readAt: null },
    orderBy: { createdAt: "desc" },
    take: 20,
    select: { id: true, kind: true, message: true, createdAt: true },
  });
}

export async function dismissOrgNotice(db: Db, orgId: string, id: string) {
  const { count } = await db.orgNotice.updateMany({ where: { orgId, id }, data: { readAt: new Date() } });
  if (count === 0) throw new NotFoundError("id", "notice not found");
}

export async function organizationName(db: Db, orgId: string): Promise<string> {
  const org = await db.organization.findUnique({ where: { id: orgId }, select: { name: true } });
  return org?.name ?? "";
}
