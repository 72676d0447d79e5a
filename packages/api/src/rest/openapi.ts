import { DEFAULT_BASELINE_RUNS, DEFAULT_GATE_ALPHA, MAX_SHARDS, METRICS, RESERVED_KEYS } from "@benchboard/core";
import { ZNormalizedRun } from "@benchboard/core/importers";
import { AGENT_CAPS } from "@benchboard/db";
import { z } from "zod";
import {
  ZConfigChange,
  ZConfigDocument,
  ZConfigInstanceConfig,
  ZConfigScenario,
  ZConfigTarget,
} from "../config-as-code";
import { ZExecFinishInput, ZExecProgressInput, ZExecStartInput } from "../routers/exec-run";
import { UPLOAD_FORMATS, ZUploadRunInput } from "../routers/upload";
import {
  ZAgentAnnounceInput,
  ZAgentCheckpointInput,
  ZAgentClaimInput,
  ZAgentHeartbeatInput,
  ZAgentProgressInput,
  ZAgentReadyInput,
  ZAgentResultInput,
  ZAgentStopInput,
} from "./agent-schemas";
import { DEFAULT_REST_LIMITS, ORG_HEADER } from "./auth";
import {
  ZRestEndpointCreate,
  ZRestEndpointUpdate,
  ZRestNotificationEndpoint,
  ZRestNotificationRule,
  ZRestRuleCreate,
  ZRestRuleUpdate,
} from "./notifications";
import {
  ZRestCompareResult,
  ZRestError,
  ZRestLaunchInput,
  ZRestLaunchResult,
  ZRestRun,
  ZRestThresholds,
  ZRestTrend,
  ZRestUploadEnvelope,
  ZRestUploadResult,
} from "./schemas";

type JsonObject = Record<string, unknown>;

const REF = (id: string) => `#/components/schemas/${id}`;

/**
 * JSON Schemas of the registered zod schemas, keyed by id, with cross-references as `$ref`s into
 * `components.schemas`. OpenAPI 3.1 speaks JSON Schema 2020-12, so zod's output fits as it is,
 * less the `$schema` and `$id` keys a component must not carry.
 */
function componentSchemas(entries: [z.ZodType, string][], io: "input" | "output"): Record<string, JsonObject> {
  const registry = z.registry<{ id: string }>();
  for (const [schema, id] of entries) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, { target: "draft-2020-12", io, uri: REF, unrepresentable: "any" });
  const out: Record<string, JsonObject> = {};
  for (const [id, schema] of Object.entries(schemas)) {
    const { $schema: _schema, $id: _id, ...rest } = schema as JsonObject;
    out[id] = rest;
  }
  return out;
}

const errorResponse = (description: string) => ({
  description,
  content: { "application/json": { schema: { $ref: REF("Error") } } },
});

const COMMON_ERRORS = {
  "401": errorResponse(
    "Missing, unknown, revoked or expired API token (or one of another organization than `Benchboard-Org`).",
  ),
  "403": errorResponse("The token lacks the scope this route needs, or is limited to another project."),
  "429": {
    ...errorResponse("Too many requests with this token; retry after the number of seconds in `Retry-After`."),
    headers: { "Retry-After": { description: "Seconds until the window resets.", schema: { type: "integer" } } },
  },
  // Answered by the HTTP server before any route runs, with no body.
  "431": { description: "The request line and headers together exceed 16 KB (e.g. a very long query string)." },
  "503": {
    ...errorResponse(
      "The database is unavailable (restarting); nothing was stored. Retry after `Retry-After` seconds.",
    ),
    headers: { "Retry-After": { description: "Seconds to wait before retrying.", schema: { type: "integer" } } },
  },
};

const orgHeader = {
  name: "Benchboard-Org",
  in: "header",
  required: false,
  description:
    "Optional organization (slug or id) the token must belong to; a token of any other organization is refused with 401.",
  schema: { type: "string" },
};

/**
 * Text the server trims before use: at least one character that is not whitespace (JavaScript's
 * `trim` also strips U+FEFF), at most `max` characters.
 */
const nonBlank = (maxLength?: number): JsonObject => ({
  type: "string",
  minLength: 1,
  ...(maxLength ? { maxLength } : {}),
  pattern: "[^\\s\\uFEFF]",
});

/** The JSON Schema of one zod field, as a parameter's schema. */
function fieldSchema(schema: z.ZodType): JsonObject {
  const { $schema: _schema, ...rest } = z.toJSONSchema(schema, { target: "draft-2020-12", io: "input" }) as JsonObject;
  return rest;
}

/** The Idempotency-Key header: 1–255 visible ASCII characters. */
const idempotencyKeySchema = fieldSchema(ZUploadRunInput.shape.idempotencyKey.unwrap());

const queryParam = (name: string, description: string, schema: JsonObject = { type: "string" }) => ({
  name,
  in: "query",
  required: false,
  description,
  schema,
});

/** The OpenAPI 3.1 description of REST /api/v1, served at /api/v1/openapi.json. */
export function openApiDocument(): JsonObject {
  const maxMb = DEFAULT_REST_LIMITS.maxBodyBytes / 1_000_000;
  const inputs = componentSchemas(
    [
      [ZNormalizedRun, "NormalizedRun"],
      [ZRestUploadEnvelope, "UploadEnvelope"],
      [ZRestLaunchInput, "LaunchInput"],
      [ZExecStartInput, "ExecStartInput"],
      [ZExecProgressInput, "ExecProgressInput"],
      [ZExecFinishInput, "ExecFinishInput"],
      [ZConfigDocument, "ConfigDocument"],
      [ZConfigTarget, "ConfigTarget"],
      [ZConfigInstanceConfig, "ConfigInstanceConfig"],
      [ZConfigScenario, "ConfigScenario"],
      // An item PUT at its name: the path names it, so the body doesn't (the server takes a
      // body that repeats the same name, and refuses one naming another item).
      [ZConfigTarget.omit({ name: true }), "ConfigTargetBody"],
      [ZConfigInstanceConfig.omit({ name: true }), "ConfigInstanceConfigBody"],
      [ZConfigScenario.omit({ name: true }), "ConfigScenarioBody"],
      [ZAgentAnnounceInput, "AgentAnnounceInput"],
      [ZAgentClaimInput, "AgentClaimInput"],
      [ZAgentStopInput, "AgentStopInput"],
      [ZAgentHeartbeatInput, "AgentHeartbeatInput"],
      [ZAgentReadyInput, "AgentReadyInput"],
      [ZAgentProgressInput, "AgentProgressInput"],
      [ZAgentCheckpointInput, "AgentCheckpointInput"],
      [ZAgentResultInput, "AgentResultInput"],
      [ZRestEndpointCreate, "NotificationEndpointInput"],
      [ZRestEndpointUpdate, "NotificationEndpointUpdate"],
      [ZRestRuleCreate, "NotificationRuleInput"],
      [ZRestRuleUpdate, "NotificationRuleUpdate"],
    ],
    "input",
  );
  const schemas = {
    ...inputs,
    [JSON_VALUE]: JSON_VALUE_SCHEMA,
    ...componentSchemas(
      [
        [ZRestError, "Error"],
        [ZRestThresholds, "Thresholds"],
        [ZRestRun, "Run"],
        [ZRestUploadResult, "UploadResult"],
        [ZRestLaunchResult, "LaunchResult"],
        [ZRestCompareResult, "CompareResult"],
        [ZRestTrend, "Trend"],
        [ZConfigChange, "ConfigChange"],
        [ZRestNotificationEndpoint, "NotificationEndpoint"],
        [ZRestNotificationRule, "NotificationRule"],
      ],
      "output",
    ),
  };
  const upload = ZUploadRunInput.shape;
  const uploadQuery = [
    queryParam("project", "The project's id or slug (required unless a JSON envelope names it).", nonBlank(200)),
    queryParam(
      "scenario",
      "Scenario name; a stored scenario of that name in the project adds its thresholds.",
      nonBlank(200),
    ),
    queryParam("format", "Format of the body; `auto` recognises it from the content.", {
      type: "string",
      enum: [...UPLOAD_FORMATS],
      default: "auto",
    }),
    queryParam("provider", "bifrost-benchmarking: which provider's run to take.", nonBlank(100)),
    queryParam("branch", "Git branch.", fieldSchema(upload.branch.unwrap())),
    queryParam("commit", "Git commit id (hexadecimal).", fieldSchema(upload.commit.unwrap())),
    queryParam("ciUrl", "Link to the CI job.", fieldSchema(upload.ciUrl.unwrap())),
    {
      ...queryParam("tag", "A tag; repeat for several (or `tags=a,b`).", {
        type: "array",
        maxItems: 20,
        items: fieldSchema(upload.tags.unwrap().element),
      }),
      style: "form",
      explode: true,
    },
    queryParam("notes", "Free text shown on the run.", fieldSchema(upload.notes.unwrap())),
    {
      name: "instanceConfig",
      in: "query",
      required: false,
      description:
        "Where the target ran, as JSON: instanceType, vcpu, memoryMb, cpuLimit, replicas, knobs. Stored as the run's config snapshot.",
      content: { "application/json": { schema: { $ref: `${REF("UploadEnvelope")}/properties/instanceConfig` } } },
    },
  ];
  const document: JsonObject = {
    openapi: "3.1.0",
    info: {
      title: "Benchboard API",
      version: "1",
      description:
        "Upload load-test results from CI, launch stored scenarios, read runs and gate builds on comparisons. " +
        "Authenticate with an API token (Settings → API tokens) as `Authorization: Bearer <token>`. " +
        "Errors are `{ error: { message, field?, line? } }`; the message names the field, or the line of a text upload. " +
        "No text may hold a NUL character (U+0000, `%00` in a query): PostgreSQL cannot store one, so such a request is refused with 400.",
    },
    servers: [{ url: "/api/v1" }],
    security: [{ bearerToken: [] }],
    tags: [
      { name: "runs" },
      { name: "exec" },
      { name: "config" },
      { name: "compare" },
      { name: "trends" },
      { name: "badges" },
      { name: "schemas" },
      { name: "agents" },
      { name: "notifications" },
    ],
    paths: {
      "/runs": {
        post: {
          tags: ["runs"],
          operationId: "uploadRun",
          summary: "Upload a finished run",
          description:
            "Stores a run from Benchboard's own JSON (`NormalizedRun`) or a load tool's output (k6 summary or `--out json` " +
            "stream, vegeta report or `encode` results, oha, Gatling stats.json, bifrost-benchmarking JSON; JMeter CSV " +
            "results; wrk/wrk2, hey, ab, drill text). Send either a JSON envelope (`UploadEnvelope`), " +
            "or the file itself as the body with the other fields as query parameters. The run is stored succeeded, " +
            "with source `upload` or `import:<format>`, its start and end from the data, the project's and the " +
            "same-named scenario's thresholds evaluated and the tool's own threshold verdicts kept. Every part of the " +
            "result is bounded (see `maxProperties`/`maxItems` in `NormalizedRun`: e.g. at most 5,000 metrics); a result " +
            "over a bound, or with a key named `__proto__`, `constructor` or `prototype` at any depth, is a 400 naming " +
            "the field, and nothing is stored. Needs scope `runs:write`.",
          parameters: [
            {
              name: "Idempotency-Key",
              in: "header",
              required: false,
              description:
                "Makes retries safe: an upload with a key used before in the organization returns the run stored then (200) instead of storing another.",
              schema: idempotencyKeySchema,
            },
            orgHeader,
            ...uploadQuery,
          ],
          requestBody: {
            required: true,
            description: `At most ${maxMb} MB.`,
            content: {
              "application/json": {
                schema: {
                  oneOf: [{ $ref: REF("UploadEnvelope") }, { $ref: REF("NormalizedRun") }, { type: "object" }],
                },
              },
              "text/plain": { schema: { type: "string" } },
            },
          },
          responses: {
            "201": {
              description: "Stored.",
              headers: { Location: { description: "The run's page.", schema: { type: "string" } } },
              content: { "application/json": { schema: { $ref: REF("UploadResult") } } },
            },
            "200": {
              description: "The Idempotency-Key was used before: the run stored then.",
              content: { "application/json": { schema: { $ref: REF("UploadResult") } } },
            },
            "400": errorResponse(
              "Bad input: the message names the field, or the line of a text upload. Nothing is stored.",
            ),
            ...COMMON_ERRORS,
            "404": errorResponse("No such project in the token's organization."),
            "413": errorResponse(`The body is larger than ${maxMb} MB.`),
            "415": errorResponse("Form uploads are not accepted: send the file as the body."),
            "503": {
              ...errorResponse(
                "The organization's uploads being read already fill its share of the parse pool (or the pool's queue is full); nothing is stored. Retry with the same Idempotency-Key after `Retry-After` seconds.",
              ),
              headers: {
                "Retry-After": {
                  description: "Seconds after which a retry is likely taken.",
                  schema: { type: "integer" },
                },
              },
            },
          },
        },
      },
      "/runs/launch": {
        post: {
          tags: ["runs"],
          operationId: "launchRun",
          summary: "Launch a stored scenario on a target",
          description:
            "Queues a run of a stored scenario (by id, or by name with `project`) against one of the project's targets, " +
            "optionally on an instance config, with the same checks as the web app: organization caps (rate, connections, " +
            "duration, concurrent runs, worker slots — one per shard) and target safety (the operator's allow-list; " +
            "metadata and link-local addresses never). An organization other than the install's own may send load only " +
            "to an origin it has verified (HTTP token at `/.well-known/benchboard-verification.txt` or DNS TXT record at " +
            "`_benchboard-verification.<host>`, from the target's page); until then only a probe of at most 10 requests " +
            "(`http-closed` with `requests` ≤ 10). " +
            "`shards` splits each run across worker processes (results merge exactly), `workerLabel` sends it to workers " +
            "offering that label, `agentLabel` runs it on the organization's own agents offering that label instead " +
            "(`benchboard agent`, inside its network: no origin verification, private addresses allowed; a target " +
            "declared agent-only always runs there; a label no online agent offers is refused with 409 naming it and when an " +
            "agent with it was last seen, unless `queueWithoutAgent` is true: the run then waits, `GET /runs/{id}` says for " +
            "what in `waitingFor`, and it ends `failed` if no agent takes it within `BENCHBOARD_QUEUE_GIVE_UP_S`), and `rate`, `concurrency` and `durationS` override the scenario's load for this launch " +
            "(kept on the run's snapshot, within the caps). " +
            "`findCapacity` runs an open-model scenario as a capacity search (plateaus at stepped, then bisected rates " +
            "between `minRate` and `maxRate`, judged against `slo`), its worst case checked against the caps up front; " +
            "the run's `capacitySearch` then holds the sustainable rate, every plateau and why it stopped. " +
            "Poll `GET /runs/{id}` for progress and results. Needs scope `runs:launch`.",
          parameters: [
            {
              name: "Idempotency-Key",
              in: "header",
              required: false,
              description:
                "Makes retries safe: a launch with a key used before in the organization returns that launch's runs (200) instead of launching again.",
              schema: idempotencyKeySchema,
            },
            orgHeader,
          ],
          requestBody: {
            required: true,
            content: { "application/json": { schema: { $ref: REF("LaunchInput") } } },
          },
          responses: {
            "201": {
              description:
                "Queued: the runs are stored. If the job queue (Redis) is briefly unreachable they stay `queued` and start once it answers (or end `failed` after `BENCHBOARD_QUEUE_GIVE_UP_S`).",
              content: { "application/json": { schema: { $ref: REF("LaunchResult") } } },
            },
            "200": {
              description: "The Idempotency-Key was used before: the runs launched then.",
              content: { "application/json": { schema: { $ref: REF("LaunchResult") } } },
            },
            "400": errorResponse("Bad input, naming the field."),
            ...COMMON_ERRORS,
            "404": errorResponse("No such project, scenario, target or instance config."),
            "409": errorResponse(
              "Over the organization's caps (rate, connections, duration, concurrent runs, worker slots), the target's origin not verified for the organization, a split the scenario cannot take, an override its engine has no use for, a label no online worker offers, or a label no online agent offers or none of its online agents can take within its limits (rate, connections, engines; without `queueWithoutAgent`).",
            ),
          },
        },
      },
      ...execPaths(),
      ...agentPaths(),
      ...configPaths(),
      ...notificationPaths(),
      "/runs/{id}": {
        get: {
          tags: ["runs"],
          operationId: "getRun",
          summary: "A run's status, progress and results",
          description: "Needs scope `runs:read`.",
          parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }, orgHeader],
          responses: {
            "200": { description: "The run.", content: { "application/json": { schema: { $ref: REF("Run") } } } },
            ...COMMON_ERRORS,
            "404": errorResponse("No such run in the token's organization (or project)."),
          },
        },
      },
      "/agents/{name}": {
        delete: {
          tags: ["agents"],
          operationId: "removeAgent",
          summary: "Remove an offline agent",
          description:
            "Removes an offline agent of the token's organization by name (a finished `--once` CI agent, a pod gone for " +
            "good); its runs keep the name they recorded. An online agent is refused: stop it first, or revoke its token. " +
            "Offline agents are also removed after the install's retention (`BENCHBOARD_AGENT_RETENTION_DAYS`). " +
            "Needs scope `config:write` on a token not limited to one project.",
          parameters: [
            {
              name: "name",
              in: "path",
              required: true,
              schema: { type: "string", pattern: "^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$" },
            },
            orgHeader,
          ],
          responses: {
            "200": jsonAnswer("Removed.", {
              type: "object",
              properties: {
                removed: { type: "object", properties: { id: { type: "string" }, name: { type: "string" } } },
              },
              required: ["removed"],
            }),
            "400": errorResponse("Not an agent name (letters, digits, . _ -, at most 63)."),
            ...COMMON_ERRORS,
            "404": errorResponse("No agent of that name in the token's organization."),
            "409": errorResponse("The agent is online."),
          },
        },
      },
      "/compare": {
        get: {
          tags: ["compare"],
          operationId: "compareRuns",
          summary: "Compare a run against a baseline",
          description:
            "Per-metric deltas `(head − base) / base`, regression verdicts by each metric's direction beyond the tolerance, " +
            "a prediction t-test of head against the last runs of base's branch, change points in head's history, " +
            "head's validity and its threshold verdicts (pass, fail or not measured). `passed` is what a CI gate should use: " +
            "an invalid head and a threshold not measured fail it unless allowed. Needs scope `runs:read`.",
          parameters: [
            {
              name: "base",
              in: "query",
              required: true,
              description:
                "A run id, or `branch:<name>`: the latest succeeded, non-excluded run of that branch for head's scenario.",
              schema: nonBlank(),
            },
            { name: "head", in: "query", required: true, description: "A run id.", schema: nonBlank() },
            queryParam("tolerance", "Percent a metric may worsen before it counts as a regression.", {
              type: "number",
              minimum: 0,
              maximum: 1000,
              default: 5,
            }),
            queryParam(
              "metrics",
              "Comma-separated metric keys to judge (default: rps, throughput, success_rate, latency mean/p50/p90/p95/p99, … that either run has).",
            ),
            queryParam("allowNotMeasured", "Let a threshold head did not measure pass the gate.", {
              type: "boolean",
              default: false,
            }),
            queryParam("allowInvalid", "Let a head run the engine flagged invalid pass the gate.", {
              type: "boolean",
              default: false,
            }),
            queryParam(
              "gate",
              "What makes a metric a regression: noise (beyond the tolerance and beyond the baseline's own noise), tolerance (beyond the tolerance alone, e.g. against one run) or statistical (beyond the noise alone).",
              { type: "string", enum: ["noise", "tolerance", "statistical"], default: "noise" },
            ),
            queryParam(
              "history",
              "How many latest runs of base's branch (same scenario and config, succeeded and valid) make the baseline; fewer make the outcome inconclusive.",
              { type: "integer", minimum: 1, maximum: 100, default: DEFAULT_BASELINE_RUNS },
            ),
            queryParam("alpha", "One-sided level of the baseline's noise bound.", {
              type: "number",
              exclusiveMinimum: 0,
              maximum: 0.5,
              default: DEFAULT_GATE_ALPHA,
            }),
            orgHeader,
          ],
          responses: {
            "200": {
              description: "The comparison.",
              content: { "application/json": { schema: { $ref: REF("CompareResult") } } },
            },
            "400": errorResponse("Bad query, naming the parameter."),
            ...COMMON_ERRORS,
            "404": errorResponse("No such run, or no baseline run on the branch."),
            "409": errorResponse("Head has no results yet, or base did not succeed."),
          },
        },
      },
      "/trend": {
        get: {
          tags: ["trends"],
          operationId: "getTrend",
          summary: "A metric over a scenario's runs, with change points",
          description:
            "Succeeded runs of the scenario outside sweeps, oldest first, one line per branch; the thresholds on the metric; " +
            "and the change points found by e-divisive means (a permutation test at p ≤ 0.01), each at the first run of the new level. " +
            "Needs scope `runs:read`.",
          parameters: [
            {
              name: "project",
              in: "query",
              required: true,
              description: "The project's id or slug.",
              schema: nonBlank(200),
            },
            {
              name: "scenario",
              in: "query",
              required: true,
              description: "The scenario's name.",
              schema: nonBlank(200),
            },
            {
              name: "metric",
              in: "query",
              required: true,
              description: "A metric key, e.g. latency_p99; or `stage.<name>.<stat>` or `custom.<name>`.",
              schema: {
                anyOf: [
                  { type: "string", enum: METRICS.map((m) => m.key) },
                  { type: "string", maxLength: 200, pattern: "^(stage|custom)\\.\\S" },
                ],
              },
            },
            queryParam("branch", "Only this branch.", nonBlank(200)),
            queryParam(
              "config",
              "Only runs on this config, by its label (instance type or name, CPU limit), e.g. `t3.xlarge`.",
              nonBlank(200),
            ),
            queryParam("load", "Only runs of this load, by its label, e.g. `5,000 req/s · 60 s`.", nonBlank(200)),
            queryParam("shards", "Only runs split into this many shards.", {
              type: "integer",
              minimum: 1,
              maximum: MAX_SHARDS,
            }),
            orgHeader,
          ],
          responses: {
            "200": { description: "The trend.", content: { "application/json": { schema: { $ref: REF("Trend") } } } },
            "400": errorResponse("Bad query, naming the parameter."),
            ...COMMON_ERRORS,
            "404": errorResponse("No such project in the token's organization (or project)."),
          },
        },
      },
      "/schema/run.json": {
        get: {
          tags: ["schemas"],
          operationId: "runJsonSchema",
          summary: "JSON Schema of a native run upload",
          security: [],
          responses: {
            "200": {
              description: "JSON Schema (draft 2020-12).",
              content: { "application/json": { schema: { type: "object" } } },
            },
          },
        },
      },
      "/badge/{project}/{scenario}/{metric}.svg": {
        get: {
          tags: ["badges"],
          operationId: "getBadge",
          summary: "Status badge: a scenario's latest value and verdict on the default branch",
          description:
            "An SVG badge with the latest succeeded run's value of the metric on the project's default branch, colored by " +
            "the thresholds' verdict on that metric (green passing, red failing, amber not measured, blue without thresholds). " +
            "Served without a token only for projects whose owners made badges public, or with `token`, a live share link of " +
            "one of the project's runs or comparisons; any other project answers 404 like an unknown one. Cacheable for 5 minutes.",
          security: [],
          parameters: [
            { name: "project", in: "path", required: true, description: "The project's id.", schema: nonBlank(200) },
            {
              name: "scenario",
              in: "path",
              required: true,
              description: "The scenario's name.",
              schema: nonBlank(200),
            },
            {
              name: "metric",
              in: "path",
              required: true,
              description: "A metric key, e.g. latency_p99.",
              schema: {
                anyOf: [
                  { type: "string", enum: METRICS.map((m) => m.key) },
                  { type: "string", maxLength: 200, pattern: "^(stage|custom)\\.\\S" },
                ],
              },
            },
            queryParam("token", "A share link's token, for a project whose badges are not public.", nonBlank(200)),
          ],
          responses: {
            "200": { description: "The badge.", content: { "image/svg+xml": { schema: { type: "string" } } } },
            "400": { description: "Unknown metric.", content: { "image/svg+xml": { schema: { type: "string" } } } },
            "404": {
              description: "No such project, or its badges are not public.",
              content: { "image/svg+xml": { schema: { type: "string" } } },
            },
          },
        },
      },
      "/openapi.json": {
        get: {
          tags: ["schemas"],
          operationId: "openApi",
          summary: "This document",
          security: [],
          responses: {
            "200": { description: "OpenAPI 3.1.", content: { "application/json": { schema: { type: "object" } } } },
          },
        },
      },
    },
    components: {
      securitySchemes: {
        bearerToken: {
          type: "http",
          scheme: "bearer",
          description: `An API token with scopes runs:read, runs:write, runs:launch, config:read and/or config:write, optionally limited to one project. Header \`${ORG_HEADER}\` optionally pins its organization.`,
        },
      },
      schemas,
    },
  };
  // Every request body is refused with 400 when any object in it, at any depth, has a reserved key.
  for (const schema of Object.values(inputs)) refuseReservedKeys(schema);
  for (const item of Object.values(document.paths as Record<string, Record<string, JsonObject>>)) {
    for (const operation of Object.values(item)) {
      const content = (operation?.requestBody as { content?: Record<string, { schema?: JsonObject }> } | undefined)
        ?.content;
      for (const media of Object.values(content ?? {})) if (media.schema) refuseReservedKeys(media.schema);
    }
  }
  return document;
}

/**
 * Any JSON value in which no object has a reserved key (`__proto__`, `constructor`, `prototype`):
 * what a request body may hold where its schema leaves a value open.
 */
const JSON_VALUE = "JsonValue";
const NOT_RESERVED = { not: { enum: [...RESERVED_KEYS] } };
const JSON_VALUE_SCHEMA: JsonObject = {
  anyOf: [
    { type: ["string", "number", "boolean", "null"] },
    { type: "array", items: { $ref: REF(JSON_VALUE) } },
    { type: "object", propertyNames: NOT_RESERVED, additionalProperties: { $ref: REF(JSON_VALUE) } },
  ],
};

/** Keywords that constrain a value; a schema with none of them takes any JSON value. */
const CONSTRAINING = ["type", "$ref", "anyOf", "oneOf", "allOf", "enum", "const", "properties", "items", "not"];

/**
 * The server refuses a reserved key anywhere in a JSON body (`parseJsonBody`), before any schema:
 * state it in the document, on every object and every value a schema leaves open. Mutates `node`.
 */
function refuseReservedKeys(node: JsonObject): void {
  if (!CONSTRAINING.some((k) => k in node)) {
    node.$ref = REF(JSON_VALUE);
    return;
  }
  const types = Array.isArray(node.type) ? node.type : [node.type];
  if (types.includes("object") || "properties" in node || "additionalProperties" in node) {
    const names = node.propertyNames as JsonObject | undefined;
    if (!names) node.propertyNames = NOT_RESERVED;
    else if (!("not" in names)) node.propertyNames = { ...names, ...NOT_RESERVED };
    if (node.additionalProperties === undefined || node.additionalProperties === true) {
      node.additionalProperties = { $ref: REF(JSON_VALUE) };
    }
  }
  const visit = (child: unknown) => {
    if (child && typeof child === "object" && !Array.isArray(child)) refuseReservedKeys(child as JsonObject);
  };
  for (const child of Object.values((node.properties as JsonObject | undefined) ?? {})) visit(child);
  if (typeof node.additionalProperties === "object") visit(node.additionalProperties);
  visit(node.items);
  for (const key of ["anyOf", "oneOf", "allOf", "prefixItems"]) {
    if (Array.isArray(node[key])) for (const child of node[key] as unknown[]) visit(child);
  }
}

const jsonBody = (ref: string) => ({
  required: true,
  content: { "application/json": { schema: { $ref: REF(ref) } } },
});
const jsonAnswer = (description: string, schema: JsonObject = { type: "object" }) => ({
  description,
  content: { "application/json": { schema } },
});
const runAnswer = (description: string) =>
  jsonAnswer(description, { type: "object", properties: { run: { $ref: REF("Run") } }, required: ["run"] });
const idParam = { name: "id", in: "path", required: true, schema: { type: "string" } };
const projectParam = {
  name: "project",
  in: "path",
  required: true,
  description: "The project's slug (shown on its page) or id.",
  schema: { type: "string" },
};
const dryRunParam = queryParam("dryRun", "Only plan: answer what would change and change nothing.", {
  type: "boolean",
  default: false,
});

/** Runs a client drives while a load tool runs (`benchboard exec`). */
function execPaths(): JsonObject {
  return {
    "/runs/exec": {
      post: {
        tags: ["exec"],
        operationId: "startExecRun",
        summary: "Start a run a client drives",
        description:
          "Creates a running run with source `exec:<tool>` for a load tool the client runs itself (k6, vegeta). " +
          "The client then reports progress about once a second and finishes it with the result. A run that gets no " +
          "progress for 20 s is ended failed, like one whose worker was lost. Needs scope `runs:write`.",
        parameters: [
          {
            name: "Idempotency-Key",
            in: "header",
            required: false,
            description:
              "Makes retries safe: a start with a key used before in the organization answers with the run started then (200) instead of starting another.",
            schema: idempotencyKeySchema,
          },
          orgHeader,
        ],
        requestBody: jsonBody("ExecStartInput"),
        responses: {
          "201": runAnswer("Started; `run.url` is its live page."),
          "200": runAnswer("The Idempotency-Key was used before: the run started then."),
          "400": errorResponse("Bad input, naming the field."),
          ...COMMON_ERRORS,
          "404": errorResponse("No such project in the token's organization."),
        },
      },
    },
    "/runs/{id}/progress": {
      post: {
        tags: ["exec"],
        operationId: "execProgress",
        summary: "Report a client-driven run's figures",
        description:
          "Totals so far and the per-second samples closed since the last report (at most 60); the live page shows " +
          "the last 300 seconds. The answer says whether the run was canceled in the web app (then stop the tool and " +
          "finish it canceled) or has ended. Needs scope `runs:write`.",
        parameters: [idParam, orgHeader],
        requestBody: jsonBody("ExecProgressInput"),
        responses: {
          "200": jsonAnswer("Recorded.", {
            type: "object",
            properties: { status: { type: "string" }, cancelRequested: { type: "boolean" } },
            required: ["status", "cancelRequested"],
          }),
          "400": errorResponse("Bad input, naming the field."),
          ...COMMON_ERRORS,
          "404": errorResponse("No such client-driven run in the token's organization (or project)."),
        },
      },
    },
    "/runs/{id}/finish": {
      post: {
        tags: ["exec"],
        operationId: "finishExecRun",
        summary: "End a client-driven run with its result",
        description:
          "Stores the result (metrics, merged latency histogram, series) and ends the run succeeded, failed or " +
          "canceled; thresholds are judged as for any run. Needs scope `runs:write`.",
        parameters: [idParam, orgHeader],
        requestBody: jsonBody("ExecFinishInput"),
        responses: {
          "200": runAnswer("Ended."),
          "400": errorResponse("Bad input, naming the field."),
          ...COMMON_ERRORS,
          "404": errorResponse("No such client-driven run in the token's organization (or project)."),
          "409": errorResponse("The run has already ended."),
        },
      },
    },
  };
}

const CHANGES = { type: "array", items: { $ref: REF("ConfigChange") } };

/** The kinds of configuration item, each PUT and DELETE at `/projects/{project}/<path>/{name}`. */
const ITEM_KINDS = [
  { path: "targets", schema: "ConfigTarget", what: "target", operation: "Target" },
  { path: "instance-configs", schema: "ConfigInstanceConfig", what: "instance config", operation: "InstanceConfig" },
  { path: "scenarios", schema: "ConfigScenario", what: "scenario", operation: "Scenario" },
] as const;

/** A project's configuration (`benchboard apply` / `export`). */
function configPaths(): JsonObject {
  const writeNote =
    "Changes go through the same checks as the web app (target address safety, limits). Needs scope `config:write`.";
  const kindParam = {
    name: "kind",
    in: "path",
    required: true,
    schema: { type: "string", enum: ["targets", "instance-configs", "scenarios"] },
  };
  return {
    "/projects/{project}/config": {
      get: {
        tags: ["config"],
        operationId: "exportConfig",
        summary: "A project's configuration as a document",
        description:
          "Thresholds, targets, instance configs and scenarios, as `benchboard export` writes them. Secret header " +
          "values are never returned (the header is listed with `secret: true`). Needs scope `config:read`.",
        parameters: [projectParam, orgHeader],
        responses: {
          "200": jsonAnswer("The document.", { $ref: REF("ConfigDocument") }),
          ...COMMON_ERRORS,
          "404": errorResponse("No such project in the token's organization (or project)."),
        },
      },
      put: {
        tags: ["config"],
        operationId: "applyConfig",
        summary: "Apply a configuration document",
        description:
          "Creates what the document names and the project lacks, updates what differs (by name), leaves the rest " +
          "alone; applying the same document again changes nothing. The whole document is applied in one " +
          "transaction, items in order: the first refusal undoes everything and names the item and field. " +
          "`dryRun` makes the same changes, meeting the same checks (address rules, caps, limits), then undoes " +
          "them. A project slug no project has yet is created (named `projectName`, or the slug) unless the " +
          `token is limited to one project. ${writeNote}`,
        parameters: [projectParam, dryRunParam, orgHeader],
        requestBody: jsonBody("ConfigDocument"),
        responses: {
          "200": jsonAnswer("What was (or, with dryRun, would be) done.", {
            type: "object",
            properties: { dryRun: { type: "boolean" }, changed: { type: "integer" }, changes: CHANGES },
            required: ["dryRun", "changed", "changes"],
          }),
          "400": errorResponse("Bad input, naming the field (e.g. `targets.0.baseUrl`)."),
          ...COMMON_ERRORS,
          "404": errorResponse("No such project in the token's organization, and the name is not a slug to create."),
          "409": errorResponse("Refused by a rule (an address not allowed, a name taken, a secret without a value)."),
        },
      },
    },
    "/projects/{project}/{kind}": {
      get: {
        tags: ["config"],
        operationId: "listConfigItems",
        summary: "A project's targets, instance configs or scenarios (or thresholds)",
        description:
          "`kind` is `targets`, `instance-configs`, `scenarios` (answer `{ items }`) or `thresholds` (answer " +
          "`{ thresholds }`). Needs scope `config:read`.",
        parameters: [
          projectParam,
          {
            ...kindParam,
            schema: { type: "string", enum: ["targets", "instance-configs", "scenarios", "thresholds"] },
          },
          orgHeader,
        ],
        responses: {
          "200": jsonAnswer("The items."),
          ...COMMON_ERRORS,
          "404": errorResponse("No such project or kind."),
        },
      },
      put: {
        tags: ["config"],
        operationId: "setThresholds",
        summary: "Replace the project's thresholds (kind `thresholds` only)",
        description: `Body \`{ thresholds: [{ metric, op, value }] }\`. ${writeNote}`,
        parameters: [
          projectParam,
          { ...kindParam, schema: { type: "string", enum: ["thresholds"] } },
          dryRunParam,
          orgHeader,
        ],
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                type: "object",
                properties: { thresholds: { $ref: `${REF("ConfigDocument")}/properties/thresholds` } },
                required: ["thresholds"],
                additionalProperties: false,
              },
            },
          },
        },
        responses: {
          "200": jsonAnswer("The change."),
          "400": errorResponse("Bad input, naming the field."),
          ...COMMON_ERRORS,
          "404": errorResponse("No such project."),
          "405": {
            ...errorResponse(
              "Only `thresholds` is replaced as a whole: PUT one item at `/projects/{project}/targets/{name}` (or `instance-configs`, `scenarios`), or the document at `/projects/{project}/config`.",
            ),
            headers: { Allow: { description: "The methods this path answers.", schema: { type: "string" } } },
          },
        },
      },
    },
    // One path per kind, so that each PUT's body is the schema of its kind: the server refuses a
    // target's fields sent to an instance config.
    ...Object.fromEntries(
      ITEM_KINDS.map(({ path, schema, what, operation }) => [
        `/projects/{project}/${path}/{name}`,
        {
          put: {
            tags: ["config"],
            operationId: `put${operation}`,
            summary: `Create or update one ${what} by name`,
            description: `The body is the ${what} (\`${schema}\`) without its name, which is the path's (a body may repeat it; one naming another ${what} is refused). ${writeNote}`,
            parameters: [
              projectParam,
              { name: "name", in: "path", required: true, schema: { type: "string" } },
              dryRunParam,
              orgHeader,
            ],
            requestBody: {
              required: true,
              content: { "application/json": { schema: { $ref: REF(`${schema}Body`) } } },
            },
            responses: {
              "201": jsonAnswer("Created."),
              "200": jsonAnswer("Updated, or unchanged."),
              "400": errorResponse("Bad input, naming the field."),
              ...COMMON_ERRORS,
              "404": errorResponse("No such project."),
              "409": errorResponse("Refused by a rule, naming the field."),
            },
          },
          delete: {
            tags: ["config"],
            operationId: `delete${operation}`,
            summary: `Delete one ${what} by name`,
            description: `Runs keep their snapshots. ${writeNote}`,
            parameters: [
              projectParam,
              { name: "name", in: "path", required: true, schema: { type: "string" } },
              orgHeader,
            ],
            responses: {
              "200": jsonAnswer("Deleted."),
              ...COMMON_ERRORS,
              "404": errorResponse(`No such project or ${what}.`),
            },
          },
        },
      ]),
    ),
  };
}

function notificationPaths(): JsonObject {
  const orgWide =
    "Endpoints and rules belong to the whole organization: a token limited to one project is refused (403).";
  const writeNote = `Changes go through the same checks as the web app (the organization's address rule for receivers, roles). ${orgWide} Needs scope \`config:write\`.`;
  const readNote = `${orgWide} Needs scope \`config:read\`.`;
  const endpointAnswer = (description: string) =>
    jsonAnswer(description, {
      type: "object",
      properties: { endpoint: { $ref: REF("NotificationEndpoint") } },
      required: ["endpoint"],
    });
  const ruleAnswer = (description: string) =>
    jsonAnswer(description, {
      type: "object",
      properties: { rule: { $ref: REF("NotificationRule") } },
      required: ["rule"],
    });
  const list = (ref: string) =>
    jsonAnswer("The organization's items, oldest first.", {
      type: "object",
      properties: { items: { type: "array", items: { $ref: REF(ref) } } },
      required: ["items"],
    });
  const deleted = jsonAnswer("Deleted.", {
    type: "object",
    properties: { deleted: { type: "object", properties: { id: { type: "string" } }, required: ["id"] } },
    required: ["deleted"],
  });
  const refused = errorResponse(
    "Refused by a rule, naming the field: a receiver the address rule refuses, a secret on a channel that is not signed, a scenario of another project.",
  );
  return {
    "/notifications/endpoints": {
      get: {
        tags: ["notifications"],
        operationId: "listNotificationEndpoints",
        summary: "Notification endpoints",
        description: `Each endpoint's channel, receiver origin (\`scheme://host:port\`; the rest of the URL is a credential and never returned) and state. ${readNote}`,
        parameters: [orgHeader],
        responses: { "200": list("NotificationEndpoint"), ...COMMON_ERRORS },
      },
      post: {
        tags: ["notifications"],
        operationId: "createNotificationEndpoint",
        summary: "Add a notification endpoint",
        description: `A signed webhook, or a Slack or Microsoft Teams incoming webhook. A webhook's signing secret is in this answer once (\`secret\`), unless the request chose it. ${writeNote}`,
        parameters: [orgHeader],
        requestBody: jsonBody("NotificationEndpointInput"),
        responses: {
          "201": jsonAnswer("Created.", {
            type: "object",
            properties: {
              endpoint: { $ref: REF("NotificationEndpoint") },
              secret: { type: ["string", "null"] },
            },
            required: ["endpoint", "secret"],
          }),
          "400": errorResponse("Bad input, naming the field."),
          ...COMMON_ERRORS,
          "409": refused,
        },
      },
    },
    "/notifications/endpoints/{id}": {
      patch: {
        tags: ["notifications"],
        operationId: "updateNotificationEndpoint",
        summary: "Rename, re-point, re-key or switch a notification endpoint",
        description: `The fields given change; the others keep their values. A new URL, or switching the endpoint on, asks the address rule first. ${writeNote}`,
        parameters: [idParam, orgHeader],
        requestBody: jsonBody("NotificationEndpointUpdate"),
        responses: {
          "200": endpointAnswer("The endpoint as it is now."),
          "400": errorResponse("Bad input, naming the field."),
          ...COMMON_ERRORS,
          "404": errorResponse("No such endpoint in the token's organization."),
          "409": refused,
        },
      },
      delete: {
        tags: ["notifications"],
        operationId: "deleteNotificationEndpoint",
        summary: "Delete a notification endpoint",
        description: `Its deliveries and their log go with it. ${writeNote}`,
        parameters: [idParam, orgHeader],
        responses: {
          "200": deleted,
          "400": errorResponse("Bad input, naming the field."),
          ...COMMON_ERRORS,
          "404": errorResponse("No such endpoint in the token's organization."),
        },
      },
    },
    "/notifications/rules": {
      get: {
        tags: ["notifications"],
        operationId: "listNotificationRules",
        summary: "Notification rules",
        description: `Which events go to which endpoints, for the organization or one project or scenario. ${readNote}`,
        parameters: [orgHeader],
        responses: { "200": list("NotificationRule"), ...COMMON_ERRORS },
      },
      post: {
        tags: ["notifications"],
        operationId: "createNotificationRule",
        summary: "Add a notification rule",
        description: `Events repeated in \`events\` (or ids in \`endpointIds\`) count once. ${writeNote}`,
        parameters: [orgHeader],
        requestBody: jsonBody("NotificationRuleInput"),
        responses: {
          "201": ruleAnswer("Created."),
          "400": errorResponse("Bad input, naming the field."),
          ...COMMON_ERRORS,
          "404": errorResponse("A project, scenario or endpoint the rule names is not in the token's organization."),
          "409": refused,
        },
      },
    },
    "/notifications/rules/{id}": {
      patch: {
        tags: ["notifications"],
        operationId: "updateNotificationRule",
        summary: "Change a notification rule",
        description: `The fields given change (\`endpointIds\` replaces the list); the others keep their values. ${writeNote}`,
        parameters: [idParam, orgHeader],
        requestBody: jsonBody("NotificationRuleUpdate"),
        responses: {
          "200": ruleAnswer("The rule as it is now."),
          "400": errorResponse("Bad input, naming the field."),
          ...COMMON_ERRORS,
          "404": errorResponse(
            "No such rule, or a project, scenario or endpoint it names, in the token's organization.",
          ),
          "409": refused,
        },
      },
      delete: {
        tags: ["notifications"],
        operationId: "deleteNotificationRule",
        summary: "Delete a notification rule",
        description: writeNote,
        parameters: [idParam, orgHeader],
        responses: {
          "200": deleted,
          "400": errorResponse("Bad input, naming the field."),
          ...COMMON_ERRORS,
          "404": errorResponse("No such rule in the token's organization."),
        },
      },
    },
  };
}

/** How a header value names a variable of the agent's environment. */
const ENV_REFERENCE_SYNTAX = ["$", "{env:NAME}"].join("");

const AGENT_ERRORS = {
  "400": errorResponse("Bad input, naming the field."),
  "401": errorResponse("Missing, unknown or revoked agent token (API tokens are refused here)."),
  "404": errorResponse("No such run (or shard) claimed by this agent."),
  "410": errorResponse(
    "This agent process no longer holds its name: a newer process announced it (or the agent was removed or expired). It stops.",
  ),
  "429": errorResponse("Too many requests with this agent token; retry after `Retry-After` seconds."),
};

/** A report on a run (or shard) that has ended changes nothing. */
const ENDED_ERROR = {
  "409": errorResponse("The run (or shard) has ended: nothing was recorded; stop its load."),
};

const cancelAnswer = (description: string) =>
  jsonAnswer(description, {
    type: "object",
    properties: {
      cancel: { type: "boolean", description: "Stop the load now and report what was measured." },
      monitor: {
        type: "boolean",
        description:
          "This shard watches the run's monitors now: the lead always; another shard once the lead was lost, from this answer on.",
      },
    },
    required: ["cancel"],
  });

/**
 * The routes `benchboard agent` calls with an agent token (Settings → Agents), and nothing else
 * does: an agent token is refused on every other route, and these refuse API tokens.
 */
function agentPaths(): JsonObject {
  const runOp = (
    what: string,
    operationId: string,
    summary: string,
    description: string,
    body: string,
    ok: JsonObject,
  ) => ({
    [`/agent/runs/{id}/${what}`]: {
      post: {
        tags: ["agents"],
        operationId,
        summary,
        description: `${description} Needs an agent token; only the agent that claimed the run (or shard) may call it.`,
        parameters: [idParam],
        requestBody: jsonBody(body),
        responses: { "200": ok, ...AGENT_ERRORS, ...(what === "result" ? {} : ENDED_ERROR) },
      },
    },
  });
  return {
    "/agent/announce": {
      post: {
        tags: ["agents"],
        operationId: "agentAnnounce",
        summary: "An agent starts: name, labels, capacity, limits, version",
        description:
          "Registers an agent of the token's organization, with its limits (`maxRate`, `maxConnections`, `engines`): " +
          "it is handed only runs (or shards) within them. Names are unique per organization and the newest announce " +
          "holds a name: it gets a new `instanceId`, and the process that held the name before is answered 410 on its " +
          "next claim (and on its reports, when it used another token) and stops. Needs an agent token.",
        requestBody: jsonBody("AgentAnnounceInput"),
        responses: {
          "200": jsonAnswer("Announced.", {
            type: "object",
            properties: {
              agent: {
                type: "object",
                properties: {
                  id: { type: "string" },
                  name: { type: "string" },
                  instanceId: { type: "string" },
                  labels: { type: "array", items: { type: "string" } },
                  capacity: { type: "integer" },
                  maxRate: { type: ["number", "null"] },
                  maxConnections: { type: ["integer", "null"] },
                  engines: { type: "array", items: { type: "string" } },
                },
              },
            },
          }),
          ...AGENT_ERRORS,
          "409": errorResponse(
            `The organization's online agents would offer more than ${AGENT_CAPS.labelsPerOrg} labels, or the token already runs ${AGENT_CAPS.agentsPerToken} online agents.`,
          ),
        },
      },
    },
    "/agent/claim": {
      post: {
        tags: ["agents"],
        operationId: "agentClaim",
        summary: "Long poll for the next run (or shard) of the organization's agents with one of the agent's labels",
        description:
          "Waits up to `waitS` seconds. The answer carries what the agent needs to run it: the target's address and " +
          "headers (secret values only as `" +
          ENV_REFERENCE_SYNTAX +
          "`, resolved on the agent), the scenario (this shard's share), the " +
          "organization's caps, the monitors (the lead watches them; another shard takes them over if the lead is lost) " +
          "and, for the lead, the config hook. Needs an agent token.",
        requestBody: jsonBody("AgentClaimInput"),
        responses: {
          "200": jsonAnswer("A run (or shard) was claimed for this agent.", {
            type: "object",
            properties: { assignment: { type: "object" } },
            required: ["assignment"],
          }),
          "204": { description: "Nothing to run within the wait." },
          ...AGENT_ERRORS,
          "429": errorResponse(
            `Too many requests with this agent token, or ${AGENT_CAPS.claimsPerOrg} claims of the organization already wait; retry after \`Retry-After\` seconds.`,
          ),
          "503": errorResponse("The job queue is unavailable; try again after `Retry-After` seconds."),
        },
      },
    },
    "/agent/queue": {
      get: {
        tags: ["agents"],
        operationId: "agentQueue",
        summary: "The organization's agent work per label, for an autoscaler",
        description:
          "Per label: runs on the agents' queue no agent took yet (`waitingRuns`), shards waiting (`waitingShards`, an " +
          "unsharded run is one) and running (`runningShards`), and `activeShards`, their sum: the agent slots the label " +
          "needs. With `label`, that label's counts at the top level (zeros without work); without, every label with " +
          "work under `labels`. Needs an agent token; counts only the token's organization.",
        parameters: [queryParam("label", "One agent label.")],
        responses: {
          "200": jsonAnswer("The counts.", {
            type: "object",
            properties: {
              label: { type: "string" },
              waitingRuns: { type: "integer" },
              waitingShards: { type: "integer" },
              runningShards: { type: "integer" },
              activeShards: { type: "integer" },
              labels: { type: "array", items: { type: "object" } },
            },
          }),
          "400": AGENT_ERRORS["400"],
          "401": AGENT_ERRORS["401"],
          "429": AGENT_ERRORS["429"],
        },
      },
    },
    "/agent/stop": {
      post: {
        tags: ["agents"],
        operationId: "agentStop",
        summary: "The agent is stopping",
        description: "Shows the agent offline from now. Needs an agent token.",
        requestBody: jsonBody("AgentStopInput"),
        responses: { "200": jsonAnswer("Recorded."), ...AGENT_ERRORS },
      },
    },
    ...runOp(
      "heartbeat",
      "agentHeartbeat",
      "The agent still runs it",
      "Sent every second while no progress is; a run whose agent stops heartbeating ends failed with its last checkpoint.",
      "AgentHeartbeatInput",
      cancelAnswer("Recorded."),
    ),
    ...runOp(
      "ready",
      "agentReady",
      "Load prepared; when to start",
      "Records what the config hook reported (the lead) and marks the shard ready; `startAt` (epoch ms) is the moment every shard starts, null while some are not ready.",
      "AgentReadyInput",
      jsonAnswer("Recorded.", {
        type: "object",
        properties: {
          startAt: { type: ["number", "null"] },
          waitingFor: { type: "array" },
          cancel: { type: "boolean" },
        },
      }),
    ),
    ...runOp(
      "progress",
      "agentProgress",
      "One second of progress",
      "Totals so far; the shard watching the monitors (the lead, or the one that took them over) carries their latest readings. The live page shows the last 300 seconds.",
      "AgentProgressInput",
      cancelAnswer("Recorded."),
    ),
    ...runOp(
      "checkpoint",
      "agentCheckpoint",
      "The result so far",
      "Kept if the agent dies before the end; the shard watching the monitors sends their series sampled so far with it. Bounded and re-encoded like an upload.",
      "AgentCheckpointInput",
      cancelAnswer("Recorded."),
    ),
    ...runOp(
      "result",
      "agentResult",
      "The run's (or shard's) end and result",
      "The result is bounded and re-encoded like an upload and judged as a worker's; a sharded run merges when its last shard ended, and its group goes on.",
      "AgentResultInput",
      jsonAnswer("Stored (`ended` is false when the run had already ended).", {
        type: "object",
        properties: { ended: { type: "boolean" } },
      }),
    ),
  };
}
