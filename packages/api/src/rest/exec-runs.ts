import { findProjectByRef } from "@benchboard/db";
import { ZExecFinishInput, ZExecProgressInput, ZExecStartInput } from "../routers/exec-run";
import { assertProjectAllowed, authorize, type RestDeps, restLimits } from "./auth";
import {
  json,
  parseJsonBody,
  RestError,
  type RestRequest,
  type RestResponse,
  readBodyText,
  restErrorResponse,
  zodFailure,
} from "./http";
import { loadRun, presentRun, requestOrigin } from "./runs";

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
    const parsed = ZExecStartInput.safeParse(parseJsonBody(await readBodyText(req, MAX_START_BODY_BYTES)));
    if (!parsed.success) throw zodFailure(parsed.error);
    const project = await findProjectByRef(deps.db, api.token.orgId, parsed.data.project);
    if (!project) {
      throw new RestError(404, `project: no project "${parsed.data.project}" in this organization`, {
        field: "project",
      });
    }
    assertProjectAllowed(api.token, project.id, {
      status: 403,
      field: "project",
      message: "this API token is limited to another project",
    });
    const started = await api.caller.execRun.start({ ...parsed.data, project: project.id });
    const run = presentRun(await loadRun(api, started.id), requestOrigin(req));
    return json(201, { run }, { location: run.url });
  } catch (err) {
    return restErrorResponse(err, "POST /runs/exec");
  }
}

// ---- POST /api/v1/runs/{id}/progress ----

export async function execProgressHandler(req: RestRequest, deps: RestDeps, id: string): Promise<RestResponse> {
  try {
    const api = await authorize(req, deps, "runs:write");
    const parsed = ZExecProgressInput.safeParse(parseJsonBody(await readBodyText(req, MAX_PROGRESS_BODY_BYTES)));
    if (!parsed.success) throw zodFailure(parsed.error);
    await loadRun(api, id);
    const state = await api.caller.execRun.progress({ ...parsed.data, id });
    return json(200, state);
  } catch (err) {
    return restErrorResponse(err, "POST /runs/{id}/progress");
  }
}

// ---- POST /api/v1/runs/{id}/finish ----

export async function finishExecRunHandler(req: RestRequest, deps: RestDeps, id: string): Promise<RestResponse> {
  try {
    const api = await authorize(req, deps, "runs:write");
    const parsed = ZExecFinishInput.safeParse(parseJsonBody(await readBodyText(req, restLimits(deps).maxBodyBytes)));
    if (!parsed.success) throw zodFailure(parsed.error);
    await loadRun(api, id);
    await api.caller.execRun.finish({ ...parsed.data, id });
    return json(200, { run: presentRun(await loadRun(api, id), requestOrigin(req)) });
  } catch (err) {
    return restErrorResponse(err, "POST /runs/{id}/finish");
  }
}
