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
  organizationName,
  recordTestEvent,
  rotateNotificationSecret,
  setNotificationEndpointEnabled,
} from "@benchboard/db";
import { enqueueDeliveries, notificationsQueueBeside } from "@benchboard/jobs";
import { notificationSafetyPolicy } from "@benchboard/loadgen/notify";
import { assessUrl } from "@benchboard/loadgen/target-safety";
import { z } from "zod";
import { installSettingsFor } from "../launch-safety";
import { type Context, memberProcedure, orgProcedure, ownerProcedure, router } from "../trpc";

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
 * Refuse a receiver the install's address rules refuse for this organization: the same decision
 * (`notificationSafetyPolicy`) every delivery asks again right before it sends.
 */
async function assertReceiverAllowed(ctx: Context & { orgId: string }, url: string) {
  const settings = await installSettingsFor(ctx);
  const installOrg = await isInstallOrganization(ctx.db, ctx.orgId);
  const verdict = await assessUrl(url, notificationSafetyPolicy(settings, { installOrg }, ctx.network?.lookup));
  if (!verdict.allowed) throw new ConflictError("url", verdict.reason);
}

export const notificationRouter = router({
  /** Endpoints without their URL path or secret (the URL is a credential for Slack and Teams). */
  endpoints: orgProcedure.query(({ ctx }) => listNotificationEndpoints(ctx.db, ctx.orgId)),
  rules: orgProcedure.query(({ ctx }) => listNotificationRules(ctx.db, ctx.orgId)),
  deliveries: orgProcedure
    .input(z.object({ take: z.number().int().min(1).max(200).default(50) }).default({ take: 50 }))
    .query(({ ctx, input }) => listNotificationDeliveries(ctx.db, ctx.orgId, input.take)),
  /** A webhook's signing secret is in the answer once, here, and never again. */
  createEndpoint: memberProcedure.input(ZCreateEndpointInput).mutation(async ({ ctx, input }) => {
    await assertReceiverAllowed(ctx, input.url);
    return createNotificationEndpoint(ctx.db, ctx.orgId, { ...input, createdById: ctx.userId }, ctx.secretKey);
  }),
  rotateSecret: memberProcedure
    .input(z.object({ id: ZRowId }))
    .mutation(({ ctx, input }) => rotateNotificationSecret(ctx.db, ctx.orgId, input.id, ctx.secretKey)),
  setEnabled: memberProcedure.input(z.object({ id: ZRowId, enabled: z.boolean() })).mutation(async ({ ctx, input }) => {
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
  /** "Send test": one test event to one endpoint, delivered like any other (log included). */
  sendTest: memberProcedure.input(z.object({ id: ZRowId })).mutation(async ({ ctx, input }) => {
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
