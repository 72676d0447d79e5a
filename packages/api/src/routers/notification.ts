import { NOTIFICATION_CHANNELS, ZNotificationEventKind } from "@benchboard/core";
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
  notificationEndpointReceiver,
  organizationName,
  recordTestEvent,
  rotateNotificationSecret,
  setNotificationEndpointEnabled,
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

export const ZCreateEndpointInput = z.object({
  name: z.string().trim().min(1, "name is required").max(80),
  channel: z.enum(NOTIFICATION_CHANNELS),
  url: z
    .string()
    .trim()
    .max(2_000, "at most 2,000 characters")
    .refine((u) => /^https?:\/\//i.test(u), "the receiver must be an http:// or https:// URL"),
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
    await assertReceiverAllowed(ctx, input.url);
    return createNotificationEndpoint(ctx.db, ctx.orgId, { ...input, createdById: ctx.userId }, ctx.secretKey);
  }),
  rotateSecret: memberProcedure
    .input(z.object({ id: ZRowId }))
    .mutation(({ ctx, input }) => rotateNotificationSecret(ctx.db, ctx.orgId, input.id, ctx.secretKey)),
  /** Enabling asks the address rule again: an endpoint it disabled stays off until it points elsewhere. */
  setEnabled: memberProcedure.input(z.object({ id: ZRowId, enabled: z.boolean() })).mutation(async ({ ctx, input }) => {
    if (input.enabled) {
      const endpoint = await notificationEndpointReceiver(ctx.db, ctx.orgId, input.id);
      await assertReceiverAllowed(ctx, endpoint.urlOrigin);
    }
    await setNotificationEndpointEnabled(ctx.db, ctx.orgId, input.id, input.enabled);
    return { ok: true };
  }),
  deleteEndpoint: memberProcedure.input(z.object({ id: ZRowId })).mutation(async ({ ctx, input }) => {
    await deleteNotificationEndpoint(ctx.db, ctx.orgId, input.id);
    return { ok: true };
  }),
  createRule: memberProcedure
    .input(ZCreateRuleInput)
    .mutation(({ ctx, input }) => createNotificationRule(ctx.db, ctx.orgId, input)),
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
    await assertReceiverAllowed(ctx, endpoint.urlOrigin);
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
