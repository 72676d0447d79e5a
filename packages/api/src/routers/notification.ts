import { NOTIFICATION_CHANNELS, ZEmailRecipients, ZNotificationEventKind } from "@benchboard/core";
import {
  ConflictError,
  createNotificationEndpoint,
  createNotificationRule,
  DELIVERY_MAX_ATTEMPTS,
  deleteNotificationEndpoint,
  deleteNotificationRule,
  dismissOrgNotice,
  isInstallOrganization,
  listNotificationDeliveries,
  listNotificationEndpoints,
  listNotificationRules,
  listOrgNotices,
  memberEmails,
  notificationEndpointById,
  notificationEndpointReceiver,
  organizationName,
  recordTestEvent,
  rotateNotificationSecret,
  setNotificationEndpointEnabled,
  updateNotificationEndpoint,
  updateNotificationRule,
} from "@benchboard/db";
import { enqueueDeliveries, notificationsQueueBeside } from "@benchboard/jobs";
import { assessUrl } from "@benchboard/loadgen/target-safety";
import { z } from "zod";
import { safetyPolicyFor } from "../launch-safety";
import { type Context, enforceRateLimit, memberProcedure, orgProcedure, ownerProcedure, router } from "../trpc";

/** "Send test" per organization and minute: each is a request the install sends for the tenant. */
export const NOTIFICATION_TESTS_PER_MINUTE = 10;

/** A row id: a cuid, never free text. */
const ZRowId = z.string().min(1).max(64);

const ZEndpointName = z.string().trim().min(1, "name is required").max(80, "at most 80 characters");
const ZReceiverUrl = z
  .string()
  .trim()
  .max(2_000, "at most 2,000 characters")
  .refine((u) => /^https?:\/\//i.test(u), "the receiver must be an http:// or https:// URL");
/** A webhook's signing secret, when the caller chooses it (configuration as code); checked again when stored. */
const ZWebhookSecret = z
  .string()
  .trim()
  .regex(/^whsec_[A-Za-z0-9+/]+={0,2}$/, "must be whsec_ followed by base64")
  .max(100, "at most 100 characters");

export const ZCreateEndpointInput = z
  .object({
    name: ZEndpointName,
    channel: z.enum(NOTIFICATION_CHANNELS),
    /** Every channel but email: where to POST. */
    url: ZReceiverUrl.optional(),
    /** Email only: who gets the message (members of the organization). */
    recipients: ZEmailRecipients.optional(),
    secret: ZWebhookSecret.optional(),
  })
  .superRefine((input, ctx) => {
    if (input.channel === "email") {
      if (!input.recipients)
        ctx.addIssue({ code: "custom", path: ["recipients"], message: "add at least one recipient" });
      if (input.url)
        ctx.addIssue({ code: "custom", path: ["url"], message: "an email endpoint has recipients, not a URL" });
    } else {
      if (!input.url) ctx.addIssue({ code: "custom", path: ["url"], message: "the receiver's URL is required" });
      if (input.recipients)
        ctx.addIssue({ code: "custom", path: ["recipients"], message: "only email endpoints have recipients" });
    }
  });
export type TCreateEndpointInput = z.infer<typeof ZCreateEndpointInput>;

/** What may change on an endpoint: its name, its receiver, its secret, whether it is on. */
export const ZUpdateEndpointInput = z.object({
  id: ZRowId,
  name: ZEndpointName.optional(),
  url: ZReceiverUrl.optional(),
  recipients: ZEmailRecipients.optional(),
  secret: ZWebhookSecret.optional(),
  enabled: z.boolean().optional(),
});

export const ZCreateRuleInput = z.object({
  name: z.string().trim().min(1, "name is required").max(80),
  events: z
    .array(ZNotificationEventKind)
    .min(1, "choose at least one event")
    .refine((e) => new Set(e).size === e.length, "each event at most once"),
  projectId: ZRowId.nullish(),
  scenarioId: ZRowId.nullish(),
  endpointIds: z.array(ZRowId).min(1, "choose at least one endpoint").max(20),
  baselineBranch: z.string().trim().min(1, "name the baseline branch").max(200).default("main"),
  tolerancePct: z.number().min(0).max(1000).default(5),
});

/** A rule's fields to replace; those not given keep their values. */
export const ZUpdateRuleInput = z.object({
  id: ZRowId,
  name: ZCreateRuleInput.shape.name.optional(),
  events: ZCreateRuleInput.shape.events.optional(),
  projectId: ZRowId.nullish(),
  scenarioId: ZRowId.nullish(),
  endpointIds: ZCreateRuleInput.shape.endpointIds.optional(),
  baselineBranch: z.string().trim().min(1, "name the baseline branch").max(200).optional(),
  tolerancePct: z.number().min(0).max(1000).optional(),
  enabled: z.boolean().optional(),
});

/**
 * Refuse a receiver the organization's address rule refuses: the policy its targets get
 * (`safetyPolicyFor`: the operator's whole allow-list for the install's own organization, only
 * what was opened to tenants for any other). Every delivery asks it again before it sends. A
 * stored endpoint is judged by its origin: host and port are all the rule looks at.
 */
async function assertReceiverAllowed(ctx: Context & { orgId: string }, url: string) {
  const verdict = await assessUrl(url, await safetyPolicyFor(ctx));
  if (!verdict.allowed) throw new ConflictError("url", verdict.reason);
}

/**
 * Email goes out through the operator's mail server, so it is no way to write to strangers: a
 * tenant's email endpoint sends only to the organization's own members. The install's own
 * organization (the operator's) may send anywhere. The worker asks again before every message.
 */
async function assertRecipientsAllowed(ctx: Context & { orgId: string }, recipients: string[]) {
  if (await isInstallOrganization(ctx.db, ctx.orgId)) return;
  const members = await memberEmails(ctx.db, ctx.orgId);
  const strangers = recipients.filter((r) => !members.has(r));
  if (strangers.length) {
    throw new ConflictError(
      "recipients",
      `${strangers.join(", ")} ${strangers.length === 1 ? "is not a member" : "are not members"} of this organization: email notifications go to members only (invite them first)`,
    );
  }
}

/** Judge what an endpoint would send to: its URL by the address rule, its recipients by membership. */
async function assertDestinationAllowed(
  ctx: Context & { orgId: string },
  endpoint: { channel: string; url?: string | null; urlOrigin?: string; recipients?: string[] | null },
) {
  if (endpoint.channel === "email") return assertRecipientsAllowed(ctx, endpoint.recipients ?? []);
  const url = endpoint.url ?? endpoint.urlOrigin;
  if (url) await assertReceiverAllowed(ctx, url);
}

export const notificationRouter = router({
  /** Endpoints without their URL path or secret (the URL is a credential for Slack and Teams). */
  endpoints: orgProcedure.query(({ ctx }) => listNotificationEndpoints(ctx.db, ctx.orgId)),
  rules: orgProcedure.query(({ ctx }) => listNotificationRules(ctx.db, ctx.orgId)),
  /** The status class for everyone; the exact status and size only for the install's own organization. */
  deliveries: orgProcedure
    .input(z.object({ take: z.number().int().min(1).max(200).default(50) }).default({ take: 50 }))
    .query(async ({ ctx, input }) =>
      listNotificationDeliveries(ctx.db, ctx.orgId, input.take, {
        detail: await isInstallOrganization(ctx.db, ctx.orgId),
      }),
    ),
  /** A webhook's signing secret is in the answer once, here, and never again. */
  createEndpoint: memberProcedure.input(ZCreateEndpointInput).mutation(async ({ ctx, input }) => {
    await assertDestinationAllowed(ctx, input);
    return createNotificationEndpoint(ctx.db, ctx.orgId, { ...input, createdById: ctx.userId }, ctx.secretKey);
  }),
  rotateSecret: memberProcedure
    .input(z.object({ id: ZRowId }))
    .mutation(({ ctx, input }) => rotateNotificationSecret(ctx.db, ctx.orgId, input.id, ctx.secretKey)),
  /** Enabling asks the address rule again: an endpoint it disabled stays off until it points elsewhere. */
  setEnabled: memberProcedure.input(z.object({ id: ZRowId, enabled: z.boolean() })).mutation(async ({ ctx, input }) => {
    if (input.enabled) {
      const endpoint = await notificationEndpointReceiver(ctx.db, ctx.orgId, input.id);
      await assertDestinationAllowed(ctx, endpoint);
    }
    await setNotificationEndpointEnabled(ctx.db, ctx.orgId, input.id, input.enabled);
    return { ok: true };
  }),
  /**
   * Rename, re-point, re-key or switch an endpoint. A new receiver, or switching one on, asks the
   * address rule first; nothing is changed when it refuses.
   */
  updateEndpoint: memberProcedure.input(ZUpdateEndpointInput).mutation(async ({ ctx, input }) => {
    const stored = await notificationEndpointReceiver(ctx.db, ctx.orgId, input.id);
    if (input.url !== undefined || input.recipients !== undefined) {
      await assertDestinationAllowed(ctx, { channel: stored.channel, url: input.url, recipients: input.recipients });
    } else if (input.enabled === true && !stored.enabled) {
      await assertDestinationAllowed(ctx, stored);
    }
    const { id, enabled, ...change } = input;
    if (Object.keys(change).length) await updateNotificationEndpoint(ctx.db, ctx.orgId, id, change, ctx.secretKey);
    if (enabled !== undefined && enabled !== stored.enabled) {
      await setNotificationEndpointEnabled(ctx.db, ctx.orgId, id, enabled);
    }
    return notificationEndpointById(ctx.db, ctx.orgId, id);
  }),
  deleteEndpoint: memberProcedure.input(z.object({ id: ZRowId })).mutation(async ({ ctx, input }) => {
    await deleteNotificationEndpoint(ctx.db, ctx.orgId, input.id);
    return { ok: true };
  }),
  createRule: memberProcedure
    .input(ZCreateRuleInput)
    .mutation(({ ctx, input }) => createNotificationRule(ctx.db, ctx.orgId, input)),
  updateRule: memberProcedure.input(ZUpdateRuleInput).mutation(({ ctx, input }) => {
    const { id, ...change } = input;
    return updateNotificationRule(ctx.db, ctx.orgId, id, change);
  }),
  deleteRule: memberProcedure.input(z.object({ id: ZRowId })).mutation(async ({ ctx, input }) => {
    await deleteNotificationRule(ctx.db, ctx.orgId, input.id);
    return { ok: true };
  }),
  /**
   * "Send test": one test event to one enabled endpoint whose receiver the address rule allows
   * now, delivered like any other (log included), a few per organization and minute.
   */
  sendTest: memberProcedure.input(z.object({ id: ZRowId })).mutation(async ({ ctx, input }) => {
    await enforceRateLimit(
      ctx,
      `notification-test:${ctx.orgId}`,
      NOTIFICATION_TESTS_PER_MINUTE,
      60,
      "test notifications in this organization",
    );
    const endpoint = await notificationEndpointReceiver(ctx.db, ctx.orgId, input.id);
    if (!endpoint.enabled)
      throw new ConflictError("id", "this endpoint is disabled; enable it before sending a test to it");
    await assertDestinationAllowed(ctx, endpoint);
    const [deliveryId] = await recordTestEvent(ctx.db, ctx.orgId, input.id, {
      title: "Benchboard test notification",
      verdict: "test",
      summary: "This endpoint is set up: Benchboard will send run failures, thresholds and regressions here.",
      organization: await organizationName(ctx.db, ctx.orgId),
      figures: [],
      links: [],
    });
    if (deliveryId) {
      // Without the queue the delivery stays recorded and the workers' sweep sends it.
      await enqueueDeliveries(notificationsQueueBeside(ctx.queue), [{ id: deliveryId }], {
        attempts: DELIVERY_MAX_ATTEMPTS,
        baseDelayMs: 10_000,
      }).catch(() => {});
    }
    return { deliveryId: deliveryId ?? null };
  }),
  /** What the owners are told in the app (an endpoint disabled after failures, …). */
  notices: ownerProcedure.query(({ ctx }) => listOrgNotices(ctx.db, ctx.orgId)),
  dismissNotice: ownerProcedure.input(z.object({ id: ZRowId })).mutation(async ({ ctx, input }) => {
    await dismissOrgNotice(ctx.db, ctx.orgId, input.id);
    return { ok: true };
  }),
});
