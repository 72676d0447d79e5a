import { ZNormalizedRun } from "@benchboard/core/importers";
import { z } from "zod";
import { UPLOAD_FORMATS } from "../routers/upload";
import { DEFAULT_REST_LIMITS, ORG_HEADER } from "./auth";
import {
  ZRestCompareResult,
  ZRestError,
  ZRestLaunchInput,
  ZRestLaunchResult,
  ZRestRun,
  ZRestThresholds,
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
};

const orgHeader = {
  name: "Benchboard-Org",
  in: "header",
  required: false,
  description:
    "Optional organization (slug or id) the token must belong to; a token of any other organization is refused with 401.",
  schema: { type: "string" },
};

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
  const schemas = {
    ...componentSchemas(
      [
        [ZNormalizedRun, "NormalizedRun"],
        [ZRestUploadEnvelope, "UploadEnvelope"],
        [ZRestLaunchInput, "LaunchInput"],
      ],
      "input",
    ),
    ...componentSchemas(
      [
        [ZRestError, "Error"],
        [ZRestThresholds, "Thresholds"],
        [ZRestRun, "Run"],
        [ZRestUploadResult, "UploadResult"],
        [ZRestLaunchResult, "LaunchResult"],
        [ZRestCompareResult, "CompareResult"],
      ],
      "output",
    ),
  };
  const uploadQuery = [
    queryParam("project", "The project's id or slug (required unless a JSON envelope names it)."),
    queryParam("scenario", "Scenario name; a stored scenario of that name in the project adds its thresholds."),
    queryParam("format", "Format of the body; `auto` recognises it from the content.", {
      type: "string",
      enum: [...UPLOAD_FORMATS],
      default: "auto",
    }),
    queryParam("provider", "bifrost-benchmarking: which provider's run to take."),
    queryParam("branch", "Git branch."),
    queryParam("commit", "Git commit id (hexadecimal)."),
    queryParam("ciUrl", "Link to the CI job."),
    {
      ...queryParam("tag", "A tag; repeat for several (or `tags=a,b`).", { type: "array", items: { type: "string" } }),
      style: "form",
      explode: true,
    },
    queryParam("notes", "Free text shown on the run."),
    queryParam(
      "instanceConfig",
      "Where the target ran, as JSON: instanceType, vcpu, memoryMb, cpuLimit, replicas, knobs. Stored as the run's config snapshot.",
    ),
  ];
  return {
    openapi: "3.1.0",
    info: {
      title: "Benchboard API",
      version: "1",
      description:
        "Upload load-test results from CI, launch stored scenarios, read runs and gate builds on comparisons. " +
        "Authenticate with an API token (Settings → API tokens) as `Authorization: Bearer <token>`. " +
        "Errors are `{ error: { message, field?, line? } }`; the message names the field, or the line of a text upload.",
    },
    servers: [{ url: "/api/v1" }],
    security: [{ bearerToken: [] }],
    tags: [{ name: "runs" }, { name: "compare" }, { name: "schemas" }],
    paths: {
      "/runs": {
        post: {
          tags: ["runs"],
          operationId: "uploadRun",
          summary: "Upload a finished run",
          description:
            "Stores a run from Benchboard's own JSON (`NormalizedRun`) or a load tool's output (k6 summary, vegeta, " +
            "bifrost-benchmarking JSON; wrk/wrk2, hey, ab, drill text). Send either a JSON envelope (`UploadEnvelope`), " +
            "or the file itself as the body with the other fields as query parameters. The run is stored succeeded, " +
            "with source `upload` or `import:<format>`, its start and end from the data, the project's and the " +
            "same-named scenario's thresholds evaluated and the tool's own threshold verdicts kept. Needs scope `runs:write`.",
          parameters: [
            {
              name: "Idempotency-Key",
              in: "header",
              required: false,
              description:
                "Makes retries safe: an upload with a key used before in the organization returns the run stored then (200) instead of storing another.",
              schema: { type: "string", maxLength: 255 },
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
            "(`http-closed` with `requests` ≤ 10). Poll `GET /runs/{id}` for progress and results. Needs scope `runs:launch`.",
          parameters: [
            {
              name: "Idempotency-Key",
              in: "header",
              required: false,
              description:
                "Makes retries safe: a launch with a key used before in the organization returns that launch's runs (200) instead of launching again.",
              schema: { type: "string", maxLength: 255 },
            },
            orgHeader,
          ],
          requestBody: {
            required: true,
            content: { "application/json": { schema: { $ref: REF("LaunchInput") } } },
          },
          responses: {
            "201": {
              description: "Queued.",
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
              "Over the organization's caps (rate, connections, duration, concurrent runs, worker slots), or the target's origin is not verified for the organization.",
            ),
            "503": errorResponse("The job queue is unavailable; the run was marked failed."),
          },
        },
      },
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
      "/compare": {
        get: {
          tags: ["compare"],
          operationId: "compareRuns",
          summary: "Compare a run against a baseline",
          description:
            "Per-metric deltas `(head − base) / base`, regression verdicts by each metric's direction beyond the tolerance, " +
            "and head's threshold verdicts. `passed` is what a CI gate should use. Needs scope `runs:read`.",
          parameters: [
            {
              name: "base",
              in: "query",
              required: true,
              description:
                "A run id, or `branch:<name>`: the latest succeeded, non-excluded run of that branch for head's scenario.",
              schema: { type: "string" },
            },
            { name: "head", in: "query", required: true, description: "A run id.", schema: { type: "string" } },
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
          description: `An API token with scopes runs:read, runs:write and/or runs:launch. Header \`${ORG_HEADER}\` optionally pins its organization.`,
        },
      },
      schemas,
    },
  };
}
