import { NOTIFICATION_CHANNELS, ZEmailRecipients, ZNotificationEventKind } from "@benchboard/core";
import { z } from "zod";
import { type ApiCaller, authorize, type RestDeps } from "./auth";
import { json, parseJsonBody, RestError, type RestRequest, readBodyText, restHandler, zodFailure } from "./http";

/**
 * Notification endpoints and rules over REST: the organization's, read with `config:read` and
 * changed with `config:write`, through the web app's own procedures (so the address rule, the
 * roles and every limit are the same). A token limited to one project is refused: endpoints and
 * rules belong to the whole organization. No answer carries a receiver's URL past its origin; a
 * webhook's signing secret is in the answer that created it, once.
 */

const MAX_NOTIFICATION_BODY_BYTES = 64_000;

// The REST bodies say in their JSON Schema exactly what the server takes (the OpenAPI document is
// generated from them): no trimming the schema cannot state, repeats in a list dropped, not refused.
const ZRestName = z
  .string()
  .max(80, "at most 80 characters")
  .regex(/[^\s\uFEFF]/, "must hold a character other than white space");
const ZRestUrl = z
  .string()
  .max(2_000, "at most 2,000 characters")
  .regex(/^[hH][tT][tT][pP][sS]?:\/\//, "the receiver must be an http:// or https:// URL");
const ZRestSecret = z
  .string()
  .regex(/^whsec_[A-Za-z0-9+/]{32,86}={0,2}$/, "must be whsec_ followed by 24 to 64 bytes in base64");
const ZRestRowId = z.string().min(1).max(64);
const unique = <T>(items: T[]) => [...new Set(items)];

/** Addresses exactly as the server takes them (repeats, whatever their case, counted once). */
const ZRestRecipients = ZEmailRecipients;

/** One shape per channel, so the document states which fields each takes. */
export const ZRestEndpointCreate = z.discriminatedUnion("channel", [
  z.strictObject({
    name: ZRestName,
    channel: z.literal("webhook"),
    url: ZRestUrl,
    /** A signing secret of your choosing; without it one is made and shown in the answer, once. */
    secret: ZRestSecret.optional(),
  }),
  z.strictObject({ name: ZRestName, channel: z.enum(["slack", "teams"]), url: ZRestUrl }),
  z.strictObject({
    name: ZRestName,
    channel: z.literal("email"),
    /** Members of the organization (the install's own organization may name anyone). */
    recipients: ZRestRecipients,
  }),
]);
export const ZRestEndpointUpdate = z.strictObject({
  name: ZRestName.optional(),
  url: ZRestUrl.optional(),
  recipients: ZRestRecipients.optional(),
  secret: ZRestSecret.optional(),
  enabled: z.boolean().optional(),
});
export const ZRestRuleCreate = z.strictObject({
  name: ZRestName,
  events: z.array(ZNotificationEventKind).min(1, "choose at least one event").max(20).transform(unique),
  projectId: ZRestRowId.nullish(),
  scenarioId: ZRestRowId.nullish(),
  endpointIds: z.array(ZRestRowId).min(1, "choose at least one endpoint").max(20).transform(unique),
  baselineBranch: z
    .string()
    .max(200)
    .regex(/[^\s\uFEFF]/, "name the baseline branch")
    .optional(),
  tolerancePct: z.number().min(0).max(1000).optional(),
});
export const ZRestRuleUpdate = z.strictObject({
  name: ZRestName.optional(),
  events: ZRestRuleCreate.shape.events.optional(),
  projectId: ZRestRowId.nullish(),
  scenarioId: ZRestRowId.nullish(),
  endpointIds: ZRestRuleCreate.shape.endpointIds.optional(),
  baselineBranch: ZRestRuleCreate.shape.baselineBranch,
  tolerancePct: ZRestRuleCreate.shape.tolerancePct,
  enabled: z.boolean().optional(),
});

export const ZRestNotificationEndpoint = z.object({
  id: z.string(),
  name: z.string(),
  channel: z.enum(NOTIFICATION_CHANNELS),
  /** `scheme://host:port` of the receiver (the rest of the URL is never shown again); `mailto:` for email. */
  urlOrigin: z.string(),
  /** Email only: the addresses it sends to. */
  recipients: z.array(z.string()),
  enabled: z.boolean(),
  consecutiveFailures: z.number().int(),
  disabledAt: z.string().nullable(),
  disabledReason: z.string().nullable(),
  previousSecretUntil: z.string().nullable(),
  createdAt: z.string(),
  /** Webhooks are signed (Standard Webhooks); Slack and Teams are not. */
  signed: z.boolean(),
});

export const ZRestNotificationRule = z.object({
  id: z.string(),
  name: z.string(),
  events: z.array(z.string()),
  projectId: z.string().nullable(),
  scenarioId: z.string().nullable(),
  baselineBranch: z.string(),
  tolerancePct: z.number(),
  enabled: z.boolean(),
  endpointIds: z.array(z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
});

async function authorizeOrgWide(req: RestRequest, deps: RestDeps, scope: "config:read" | "config:write") {
  const api = await authorize(req, deps, scope);
  if (api.token.projectId) {
    throw new RestError(
      403,
      "this API token is limited to one project; notification endpoints and rules belong to the whole organization",
    );
  }
  return api;
}

async function body<T extends z.ZodType>(req: RestRequest, schema: T): Promise<z.infer<T>> {
  const parsed = schema.safeParse(parseJsonBody(await readBodyText(req, MAX_NOTIFICATION_BODY_BYTES)));
  if (parsed.success) return parsed.data;
  // A key the body's channel does not take (a Slack endpoint's `secret`) is named as the field.
  const issue = parsed.error.issues[0];
  if (issue?.code === "unrecognized_keys" && issue.keys[0]) {
    const field = [...issue.path.map(String), issue.keys[0]].join(".");
    throw new RestError(400, `${field}: not a field of this body${issue.path.length ? "" : " (for this channel)"}`, {
      field,
    });
  }
  throw zodFailure(parsed.error);
}

/** A path's row id: anything but a cuid-like word names nothing (and never reaches the database). */
function pathId(id: string, what: "endpoint" | "rule"): string {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) throw new RestError(404, `id: ${what} not found`, { field: "id" });
  return id;
}

async function ruleById(api: ApiCaller, id: string) {
  const rule = (await api.caller.notification.rules()).find((r) => r.id === id);
  if (!rule) throw new RestError(404, "id: rule not found", { field: "id" });
  return rule;
}

// ---- /api/v1/notifications/endpoints ----

export const listNotificationEndpointsHandler = restHandler(
  "GET /notifications/endpoints",
  async (req, deps: RestDeps) => {
    const api = await authorizeOrgWide(req, deps, "config:read");
    return json(200, { items: await api.caller.notification.endpoints() });
  },
);

export const createNotificationEndpointHandler = restHandler(
  "POST /notifications/endpoints",
  async (req, deps: RestDeps) => {
    const api = await authorizeOrgWide(req, deps, "config:write");
    const input = await body(req, ZRestEndpointCreate);
    const { endpoint, secret } = await api.caller.notification.createEndpoint(input);
    // A secret the caller chose is not echoed back; one made here is shown this once.
    const chosen = "secret" in input && input.secret !== undefined;
    return json(201, { endpoint: { ...endpoint, signed: secret !== null }, secret: chosen ? null : secret });
  },
);

// ---- /api/v1/notifications/endpoints/{id} ----

export const updateNotificationEndpointHandler = restHandler(
  "PATCH /notifications/endpoints/{id}",
  async (req, deps: RestDeps, id: string) => {
    const api = await authorizeOrgWide(req, deps, "config:write");
    pathId(id, "endpoint");
    const input = await body(req, ZRestEndpointUpdate);
    return json(200, { endpoint: await api.caller.notification.updateEndpoint({ ...input, id }) });
  },
);

/** DELETE of an endpoint or a rule by its path id: `{ deleted: { id } }`. */
function deleteHandler(what: "endpoint" | "rule", remove: (api: ApiCaller, id: string) => Promise<unknown>) {
  return restHandler(`DELETE /notifications/${what}s/{id}`, async (req, deps: RestDeps, id: string) => {
    const api = await authorizeOrgWide(req, deps, "config:write");
    pathId(id, what);
    await remove(api, id);
    return json(200, { deleted: { id } });
  });
}

export const deleteNotificationEndpointHandler = deleteHandler("endpoint", (api, id) =>
  api.caller.notification.deleteEndpoint({ id }),
);

// ---- /api/v1/notifications/rules ----

export const listNotificationRulesHandler = restHandler("GET /notifications/rules", async (req, deps: RestDeps) => {
  const api = await authorizeOrgWide(req, deps, "config:read");
  return json(200, { items: await api.caller.notification.rules() });
});

export const createNotificationRuleHandler = restHandler("POST /notifications/rules", async (req, deps: RestDeps) => {
  const api = await authorizeOrgWide(req, deps, "config:write");
  const input = await body(req, ZRestRuleCreate);
  const { id } = await api.caller.notification.createRule(input);
  return json(201, { rule: await ruleById(api, id) });
});

// ---- /api/v1/notifications/rules/{id} ----

export const updateNotificationRuleHandler = restHandler(
  "PATCH /notifications/rules/{id}",
  async (req, deps: RestDeps, id: string) => {
    const api = await authorizeOrgWide(req, deps, "config:write");
    pathId(id, "rule");
    const input = await body(req, ZRestRuleUpdate);
    await api.caller.notification.updateRule({ ...input, id });
    return json(200, { rule: await ruleById(api, id) });
  },
);

export const deleteNotificationRuleHandler = deleteHandler("rule", (api, id) =>
  api.caller.notification.deleteRule({ id }),
);
