import { isKnownMetric } from "@benchboard/core";
import { findProjectByRef, getTrend } from "@benchboard/db";
import { assertProjectAllowed, authorize, type RestDeps } from "./auth";
import { json, RestError, type RestRequest, type RestResponse, restErrorResponse, zodFailure } from "./http";
import { type TRestTrend, ZRestTrendQuery } from "./schemas";

/**
 * GET /api/v1/trend?project=…&scenario=…&metric=…&branch=…&config=…&load=…&shards=…: one metric
 * over a scenario's runs (sweep runs left out), oldest first, with the thresholds on it and the
 * change points found.
 */
export async function trendHandler(req: RestRequest, deps: RestDeps): Promise<RestResponse> {
  try {
    const api = await authorize(req, deps, "runs:read");
    const query = ZRestTrendQuery.safeParse(Object.fromEntries(new URL(req.url).searchParams));
    if (!query.success) throw zodFailure(query.error);
    const { project: projectRef, scenario, metric, branch, config, load, shards } = query.data;
    if (!isKnownMetric(metric)) {
      throw new RestError(400, `metric: unknown metric "${metric}"`, { field: "metric" });
    }
    const project = await findProjectByRef(deps.db, api.token.orgId, projectRef);
    if (!project) throw new RestError(404, `project: project ${projectRef} not found`, { field: "project" });
    assertProjectAllowed(api.token, project.id, { status: 404, field: "project", message: "project not found" });
    const trend = await getTrend(deps.db, api.token.orgId, {
      projectId: project.id,
      scenarioName: scenario,
      metric,
      branch: branch ?? null,
      config: config ?? null,
      load: load ?? null,
      shards: shards ?? null,
    });
    const body: TRestTrend = {
      project: { id: project.id, slug: project.slug, name: project.name },
      scenario,
      metric,
      branch: branch ?? null,
      thresholds: trend.thresholds,
      points: trend.points.map((p) => ({
        runId: p.runId,
        number: p.number,
        branch: p.branch,
        commit: p.commit,
        at: p.at.toISOString(),
        value: p.value,
        excluded: p.excluded,
      })),
      changePoints: trend.changePoints.map((c) => ({
        runId: c.runId,
        runNumber: c.number,
        branch: c.branch,
        before: c.before,
        after: c.after,
        change: c.change,
        pValue: c.pValue,
      })),
    };
    return json(200, body);
  } catch (err) {
    return restErrorResponse(err, "GET /trend");
  }
}
