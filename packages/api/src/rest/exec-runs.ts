import { findExecRunByIdempotencyKey, findProjectByRef } from "@benchboard/db";
import { ZExecFinishInput, ZExecProgressInput, ZExecStartInput } from "../routers/exec-run";
import { ZUploadRunInput } from "../routers/upload";
import { assertProjectAllowed, authorize, type RestDeps, restLimits } from "./auth";
import { json, RestError, type RestRequest, type RestResponse, readJsonInput, restErrorResponse } from "./http";
import { linkOrigin, loadRun, presentRun } from "./runs";

/**
 * Runs a client drives (`benchboard exec`): start, progress about once a second, finish. The
 * token needs `runs:write` and, when limited to a project, that project.
 */

const MAX_START_BODY_BYTES = 64_000;
const MAX_PROGRESS_BODY_BYTES = 64_000;

// ---- POST /api/v1/runs/exec ----

export async function startExecRunHandler(req: RestRequest, deps: RestDeps): Promise<RestResponse> {
  try {
    const api = await authorize(req, deps, "runs:write");
    const key = ZUploadRunInput.shape.idempotencyKey.safeParse(req.headers.get("idempotency-key") ?? undefined);
    if (!key.success) {
      throw new RestError(400, `Idempotency-Key: ${key.error.issues[0]?.message ?? "invalid"}`, {
        field: "Idempotency-Key",
      });
    }
    const idempotencyKey = key.data;
    const input = await readJsonInput(req, ZExecStartInput, MAX_START_BODY_BYTES);
    // A start sent again (its answer was lost) answers with the run the first one started.
    const replay = async () => {
      const earlier = idempotencyKey
        ? await findExecRunByIdempotencyKey(deps.db, api.token.orgId, idempotencyKey)
        : null;
      if (!earlier) return null;
      const run = presentRun(await loadRun(api, earlier.id), linkOrigin(req, deps));
      return json(200, { run, created: false }, { location: run.url });
    };
    const replayed = await replay();
    if (replayed) return replayed;
    const project = await findProjectByRef(deps.db, api.token.orgId, input.project);
    if (!project) {
      throw new RestError(404, `project: no project "${input.project}" in this organization`, {
        field: "project",
      });
    }
    assertProjectAllowed(api.token, project.id, {
      status: 403,
      field: "project",
      message: "this API token is limited to another project",
    });
    let started: { id: string };
    try {
      started = await api.caller.execRun.start({ ...input, project: project.id, idempotencyKey });
    } catch (err) {
      // Two copies of one start at once: the other stored the run; answer with it.
      const raced = idempotencyKey ? await replay() : null;
      if (raced) return raced;
      throw err;
    }
    const run = presentRun(await loadRun(api, started.id), linkOrigin(req, deps));
    return json(201, { run, created: true }, { location: run.url });
  } catch (err) {
    return restErrorResponse(err, "POST /runs/exec");
  }
}

// ---- POST /api/v1/runs/{id}/progress ----

export async function execProgressHandler(req: RestRequest, deps: RestDeps, id: string): Promise<RestResponse> {
  try {
    const api = await authorize(req, deps, "runs:write");
    const input = await readJsonInput(req, ZExecProgressInput, MAX_PROGRESS_BODY_BYTES);
    await loadRun(api, id);
    const state = await api.caller.execRun.progress({ ...input, id });
    return json(200, state);
  } catch (err) {
    return restErrorResponse(err, "POST /runs/{id}/progress");
  }
}

// ---- POST /api/v1/runs/{id}/finish ----

export async function finishExecRunHandler(req: RestRequest, deps: RestDeps, id: string): Promise<RestResponse> {
  try {
    const api = await authorize(req, deps, "runs:write");
    const input = await readJsonInput(req, ZExecFinishInput, restLimits(deps).maxBodyBytes);
    await loadRun(api, id);
    await api.caller.execRun.finish({ ...input, id });
    return json(200, { run: presentRun(await loadRun(api, id), linkOrigin(req, deps)) });
  } catch (err) {
    return restErrorResponse(err, "POST /runs/{id}/finish");
  }
}
