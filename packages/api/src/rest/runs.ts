import { capacitySearchOf, runReading, saturationHeadline } from "@benchboard/core";
import { ParsePoolBusyError, splitUploadBodyOffThread } from "@benchboard/core/importers/parse-pool";
import type { UploadBody } from "@benchboard/core/importers/read-upload";
import {
  findInstanceConfigByRef,
  findLaunchByIdempotencyKey,
  findProjectByRef,
  findScenarioByRef,
  findTargetByRef,
  storedThresholds,
} from "@benchboard/db";
import type { RouterOutputs } from "../index";
import { ZLaunchRunInput } from "../routers/run";
import { type TUploadRunInput, ZUploadRunInput } from "../routers/upload";
import { type ApiCaller, assertProjectAllowed, authorize, type RestDeps, restLimits } from "./auth";
import {
  json,
  RestError,
  type RestRequest,
  type RestResponse,
  readBodyText,
  readJsonInput,
  restErrorResponse,
  zodFailure,
} from "./http";
import { ENVELOPE_ONE_OF, type TRestRun, ZRestLaunchInput, ZRestRun, ZRestUploadEnvelopeFields } from "./schemas";

type StoredRun = RouterOutputs["run"]["byId"];

const ZStoredResult = ZRestRun.shape.result.unwrap();

/**
 * Where links to run pages point: the install's configured public URL, as in mail. Headers a
 * client sends (Host, X-Forwarded-Host, X-Forwarded-Proto) never choose it, so a response cannot
 * be made to link elsewhere. Without a configured URL (an embedding that gives none), the
 * origin the request was addressed to.
 */
export function linkOrigin(req: RestRequest, deps: Pick<RestDeps, "publicUrl">): string {
  if (deps.publicUrl) return deps.publicUrl.replace(/\/+$/, "");
  return new URL(req.url).origin;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function asRecord(value: unknown): Record<string, unknown> | null {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** A stored run as REST shows it: no histograms or series, thresholds judged, dates as ISO text. */
export function presentRun(run: StoredRun, origin: string): TRestRun {
  const result = run.result;
  const stored = result
    ? ZStoredResult.parse({
        metrics: result.metrics,
        statusCounts: result.statusCounts,
        errors: result.errors,
        stages: result.stages,
        valid: result.valid,
        invalidReasons: result.invalidReasons,
        saturationReasons: result.saturationReasons,
      })
    : null;
  const reading = stored ? runReading(stored) : null;
  return {
    id: run.id,
    number: run.number,
    url: `${origin}/runs/${run.id}`,
    project: run.project,
    status: run.status,
    source: run.source,
    scenario: { id: run.scenarioId, name: run.scenarioName },
    title: run.title,
    git: { branch: run.branch, commit: run.commit, ciUrl: run.ciUrl },
    tags: run.tags,
    notes: run.notes,
    excluded: run.excluded,
    excludedReason: run.excludedReason,
    error: run.error,
    progress: asRecord(run.progress),
    queuedAt: run.queuedAt.toISOString(),
    startedAt: iso(run.startedAt),
    endedAt: iso(run.endedAt),
    instanceConfig: asRecord(run.configSnapshot),
    result: stored,
    thresholds: result ? storedThresholds(result) : null,
    valid: result ? result.valid : null,
    reading,
    saturation: stored && reading === "saturated" ? saturationHeadline(stored.metrics) : null,
    invalidReasons: result?.invalidReasons ?? [],
    saturationReasons: result?.saturationReasons ?? [],
    capacitySearch: result ? capacitySearchOf(result.extra) : null,
    waitingFor: run.waitingFor,
    placement: run.placement,
  };
}

/** A run of the caller's organization (and project, for a project-scoped token); else 404. */
export async function loadRun(api: ApiCaller, id: string, field = "id"): Promise<StoredRun> {
  const run = await api.caller.run.byId({ id }).catch((err: unknown) => {
    if (err instanceof Error && "code" in err && err.code === "NOT_FOUND") {
      throw new RestError(404, `${field}: run ${id} not found`, { field });
    }
    throw err;
  });
  assertProjectAllowed(api.token, run.projectId, { status: 404, field, message: `run ${id} not found` });
  return run;
}

// ---- GET /api/v1/runs/{id} ----

export async function getRunHandler(req: RestRequest, deps: RestDeps, id: string): Promise<RestResponse> {
  try {
    const api = await authorize(req, deps, "runs:read");
    return json(200, presentRun(await loadRun(api, id), linkOrigin(req, deps)));
  } catch (err) {
    return restErrorResponse(err, "GET /runs/{id}");
  }
}

// ---- POST /api/v1/runs ----

const QUERY_FIELDS = ["project", "scenario", "format", "provider", "branch", "commit", "ciUrl", "notes"] as const;

/** Upload fields given as query parameters, for bodies that are the file itself. */
function uploadFieldsFromQuery(url: URL): Record<string, unknown> {
  const q = url.searchParams;
  const fields: Record<string, unknown> = {};
  for (const name of QUERY_FIELDS) {
    const value = q.get(name);
    if (value !== null) fields[name] = value;
  }
  const tags = [...q.getAll("tag"), ...q.getAll("tags").flatMap((t) => t.split(","))].map((t) => t.trim());
  if (tags.length) fields.tags = tags.filter(Boolean);
  const config = q.get("instanceConfig");
  if (config !== null) {
    try {
      fields.instanceConfig = JSON.parse(config);
    } catch {
      throw new RestError(400, 'instanceConfig: must be a JSON object, e.g. {"vcpu":2,"knobs":{"workers":8}}', {
        field: "instanceConfig",
      });
    }
  }
  return fields;
}

function isJsonContentType(type: string): boolean {
  return /^application\/([\w.+-]*\+)?json\b/.test(type);
}

/**
 * The upload as the tRPC procedure takes it, from whichever shape the request has. A JSON body is
 * parsed on the parse pool, never on this thread: only the envelope's small fields are checked
 * here, and the run it carries is read on the pool like any upload.
 */
async function uploadInput(req: RestRequest, text: string, orgId: string): Promise<TUploadRunInput> {
  const url = new URL(req.url);
  const type = (req.headers.get("content-type") ?? "").toLowerCase();
  if (type.startsWith("multipart/form-data") || type.startsWith("application/x-www-form-urlencoded")) {
    throw new RestError(
      415,
      "send the file as the request body (e.g. curl --data-binary @file), or a JSON envelope; form uploads are not accepted",
    );
  }
  const fromQuery = uploadFieldsFromQuery(url);
  const idempotencyKey = req.headers.get("idempotency-key") ?? undefined;
  let fields: Record<string, unknown> = { ...fromQuery, content: text };
  if (isJsonContentType(type)) {
    const { envelope, run } = await splitBody(text, orgId);
    if (envelope) {
      const parsed = ZRestUploadEnvelopeFields.safeParse({ ...fromQuery, ...envelope });
      if (!parsed.success) throw zodFailure(parsed.error);
      if ("run" in envelope) {
        throw new RestError(400, "run: must be a Benchboard run (a JSON object)", { field: "run" });
      }
      const { content, ...rest } = parsed.data;
      if ((content === undefined) === (run === undefined)) {
        throw new RestError(400, `content: ${ENVELOPE_ONE_OF}`, { field: "content" });
      }
      fields = { ...rest, content: run ?? content };
      if (run !== undefined) fields.format = "native";
    }
  }
  if (fields.project === undefined) {
    throw new RestError(400, "project: required (its id or slug), in the JSON envelope or as ?project=", {
      field: "project",
    });
  }
  const parsed = ZUploadRunInput.safeParse({ ...fields, idempotencyKey });
  if (!parsed.success) {
    const failure = zodFailure(parsed.error);
    if (failure.location.field === "idempotencyKey") {
      throw new RestError(400, failure.message.replace(/^idempotencyKey/, "Idempotency-Key"), {
        field: "Idempotency-Key",
      });
    }
    throw failure;
  }
  return parsed.data;
}

async function splitBody(text: string, orgId: string): Promise<UploadBody> {
  try {
    return await splitUploadBodyOffThread(text, orgId);
  } catch (err) {
    if (err instanceof ParsePoolBusyError) {
      throw new RestError(503, err.message, {}, { "retry-after": String(Math.ceil(err.retryAfterS)) });
    }
    throw err;
  }
}

export async function uploadRunHandler(req: RestRequest, deps: RestDeps): Promise<RestResponse> {
  try {
    const api = await authorize(req, deps, "runs:write");
    const text = await readBodyText(req, restLimits(deps).maxBodyBytes);
    const input = await uploadInput(req, text, api.token.orgId);
    const project = await findProjectByRef(deps.db, api.token.orgId, input.project);
    if (!project)
      throw new RestError(404, `project: no project "${input.project}" in this organization`, { field: "project" });
    assertProjectAllowed(api.token, project.id, {
      status: 403,
      field: "project",
      message: "this API token is limited to another project",
    });
    const stored = await api.caller.upload.run({ ...input, project: project.id });
    const run = presentRun(await loadRun(api, stored.id), linkOrigin(req, deps));
    return json(stored.created ? 201 : 200, { created: stored.created, run }, { location: run.url });
  } catch (err) {
    return restErrorResponse(err, "POST /runs");
  }
}

// ---- POST /api/v1/runs/launch ----

const MAX_LAUNCH_BODY_BYTES = 64_000;

/** The Idempotency-Key header of a launch, checked like an upload's (400 naming the header). */
function launchIdempotencyKey(req: RestRequest): string | undefined {
  const key = req.headers.get("idempotency-key") ?? undefined;
  if (key === undefined) return undefined;
  const parsed = ZLaunchRunInput.shape.idempotencyKey.safeParse(key);
  if (!parsed.success) {
    throw new RestError(400, `Idempotency-Key: ${parsed.error.issues[0]?.message ?? "invalid"}`, {
      field: "Idempotency-Key",
    });
  }
  return key;
}

export async function launchRunHandler(req: RestRequest, deps: RestDeps): Promise<RestResponse> {
  try {
    const api = await authorize(req, deps, "runs:launch");
    const input = await readJsonInput(req, ZRestLaunchInput, MAX_LAUNCH_BODY_BYTES);
    const orgId = api.token.orgId;
    const idempotencyKey = launchIdempotencyKey(req);
    // A retried launch returns the runs of the first instead of launching again.
    const replay = async () => {
      const earlier = idempotencyKey ? await findLaunchByIdempotencyKey(deps.db, orgId, idempotencyKey) : null;
      if (!earlier) return null;
      const run = presentRun(await loadRun(api, earlier.runId), linkOrigin(req, deps));
      return json(200, { run, groupRunIds: earlier.groupRunIds, created: false }, { location: run.url });
    };
    const replayed = await replay();
    if (replayed) return replayed;
    let projectId: string | undefined;
    if (input.project) {
      const project = await findProjectByRef(deps.db, orgId, input.project);
      if (!project)
        throw new RestError(404, `project: no project "${input.project}" in this organization`, { field: "project" });
      projectId = project.id;
    }
    const scenario =
      (projectId ? await findScenarioByRef(deps.db, orgId, { projectId, name: input.scenario }) : null) ??
      (await findScenarioByRef(deps.db, orgId, { id: input.scenario }));
    const notFound = (field: string, what: string) => new RestError(404, `${field}: ${what} not found`, { field });
    if (!scenario || (projectId && scenario.projectId !== projectId))
      throw notFound("scenario", `scenario "${input.scenario}"`);
    assertProjectAllowed(api.token, scenario.projectId, {
      status: 404,
      field: "scenario",
      message: `scenario "${input.scenario}" not found`,
    });
    const target = await findTargetByRef(deps.db, orgId, scenario.projectId, input.target);
    if (!target) throw notFound("target", `target "${input.target}" in the scenario's project`);
    const config = input.instanceConfig
      ? await findInstanceConfigByRef(deps.db, orgId, scenario.projectId, input.instanceConfig)
      : null;
    if (input.instanceConfig && !config) {
      throw notFound("instanceConfig", `instance config "${input.instanceConfig}" in the scenario's project`);
    }
    let launched: { id: string; groupRunIds: string[] };
    try {
      launched = await api.caller.run.launch({
        scenarioId: scenario.id,
        targetId: target.id,
        instanceConfigId: config?.id ?? null,
        tags: input.tags ?? [],
        notes: input.notes,
        repetitions: input.repetitions ?? 1,
        shards: input.shards ?? 1,
        workerLabel: input.workerLabel ?? null,
        agentLabel: input.agentLabel ?? null,
        queueWithoutAgent: input.queueWithoutAgent ?? false,
        rate: input.rate,
        concurrency: input.concurrency,
        durationS: input.durationS,
        findCapacity: input.findCapacity,
        idempotencyKey: idempotencyKey ?? null,
      });
    } catch (err) {
      // Two retries at once: the other one launched; answer with its runs.
      const raced = idempotencyKey ? await replay() : null;
      if (raced) return raced;
      throw err;
    }
    const run = presentRun(await loadRun(api, launched.id), linkOrigin(req, deps));
    return json(201, { run, groupRunIds: launched.groupRunIds, created: true }, { location: run.url });
  } catch (err) {
    return restErrorResponse(err, "POST /runs/launch");
  }
}
