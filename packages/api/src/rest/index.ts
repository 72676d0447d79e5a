import { normalizedRunJsonSchema } from "@benchboard/core/importers";
import { json, type RestResponse } from "./http";
import { openApiDocument } from "./openapi";

export { agentQueueHandler } from "./agent-queue";
export { removeAgentHandler } from "./agent-remove";
export {
  type AgentRestDeps,
  agentAnnounceHandler,
  agentCheckpointHandler,
  agentClaimHandler,
  agentHeartbeatHandler,
  agentProgressHandler,
  agentReadyHandler,
  agentResultHandler,
  agentStopHandler,
} from "./agents";
export { type ApiCaller, DEFAULT_REST_LIMITS, ORG_HEADER, type RestDeps, type RestLimits } from "./auth";
export { badgeHandler } from "./badge";
export { compareHandler } from "./compare";
export {
  deleteConfigItemHandler,
  getConfigHandler,
  listConfigHandler,
  putConfigHandler,
  putConfigItemHandler,
  putThresholdsHandler,
} from "./config";
export { execProgressHandler, finishExecRunHandler, startExecRunHandler } from "./exec-runs";
export {
  RestError,
  type RestErrorBody,
  type RestRequest,
  type RestResponse,
  readBodyText,
  toFetchResponse,
} from "./http";
export {
  createNotificationEndpointHandler,
  createNotificationRuleHandler,
  deleteNotificationEndpointHandler,
  deleteNotificationRuleHandler,
  listNotificationEndpointsHandler,
  listNotificationRulesHandler,
  updateNotificationEndpointHandler,
  updateNotificationRuleHandler,
} from "./notifications";
export { openApiDocument } from "./openapi";
export { getRunHandler, launchRunHandler, uploadRunHandler } from "./runs";
export * from "./schemas";
export { trendHandler } from "./trend";

let openApi: Record<string, unknown> | undefined;
let runSchema: Record<string, unknown> | undefined;

/** GET /api/v1/openapi.json: public, like any API description. */
export function openApiHandler(): RestResponse {
  openApi ??= openApiDocument();
  return json(200, openApi, { "cache-control": "public, max-age=300" });
}

/** GET /api/v1/schema/run.json: the JSON Schema of a native upload. */
export function runSchemaHandler(): RestResponse {
  runSchema ??= normalizedRunJsonSchema();
  return json(200, runSchema, { "cache-control": "public, max-age=300" });
}
