import { derivedContext, evaluateRegressions, formatDeltaPct, metricDef, withDerivedMetrics } from "@benchboard/core";
import { findBranchBaseline, storedThresholds } from "@benchboard/db";
import { authorize, type RestDeps } from "./auth";
import { json, RestError, type RestRequest, type RestResponse, restErrorResponse, zodFailure } from "./http";
import { loadRun, presentRun, requestOrigin } from "./runs";
import { type TRestCompareResult, ZRestCompareQuery, ZRestRunSummary } from "./schemas";

const BRANCH_PREFIX = "branch:";

type LoadedRun = Awaited<ReturnType<typeof loadRun>>;

/** The run's metrics with the derived ones (req/s per vCPU, …) computed from its snapshots. */
function metricsOf(run: LoadedRun): Record<string, number> {
  const metrics = (run.result?.metrics ?? {}) as Record<string, number>;
  return withDerivedMetrics(metrics, derivedContext(run.configSnapshot, run.scenarioSnapshot));
}

/**
 * GET /api/v1/compare?base=…&head=…&tolerance=5: head against base, metric by metric, with
 * head's threshold verdicts, and whether a CI gate should pass.
 */
export async function compareHandler(req: RestRequest, deps: RestDeps): Promise<RestResponse> {
  try {
    const api = await authorize(req, deps, "runs:read");
    const query = ZRestCompareQuery.safeParse(Object.fromEntries(new URL(req.url).searchParams));
    if (!query.success) throw zodFailure(query.error);
    const { base: baseRef, head: headRef, tolerance, metrics } = query.data;

    const head = await loadRun(api, headRef, "head");
    if (!head.result) {
      throw new RestError(
        409,
        `head: run #${head.number} is ${head.status} and has no results yet; compare once it ends`,
        {
          field: "head",
        },
      );
    }
    let baseId = baseRef;
    if (baseRef.startsWith(BRANCH_PREFIX)) {
      const branch = baseRef.slice(BRANCH_PREFIX.length).trim();
      if (!branch) throw new RestError(400, "base: name the branch, e.g. branch:main", { field: "base" });
      const found = await findBranchBaseline(deps.db, api.token.orgId, head, branch);
      if (!found) {
        throw new RestError(
          404,
          `base: no succeeded run of branch "${branch}" for scenario "${head.scenarioName}" to compare with`,
          { field: "base" },
        );
      }
      baseId = found.id;
    }
    const base = await loadRun(api, baseId, "base");
    if (base.status !== "succeeded" || !base.result) {
      throw new RestError(409, `base: run #${base.number} is ${base.status}; compare against a succeeded run`, {
        field: "base",
      });
    }

    const report = evaluateRegressions(metricsOf(base), metricsOf(head), { tolerancePct: tolerance, metrics });
    const thresholds = storedThresholds(head.result);
    const reasons: string[] = [];
    if (head.status !== "succeeded")
      reasons.push(`head run #${head.number} ${head.status}${head.error ? `: ${head.error}` : ""}`);
    for (const v of thresholds.verdicts.filter((t) => !t.passed)) {
      reasons.push(
        `threshold ${metricDef(v.metric).label} ${v.op} ${v.value} failed (${v.actual === null ? "not measured" : `was ${v.actual}`})`,
      );
    }
    for (const v of thresholds.tool.filter((t) => !t.passed)) {
      reasons.push(`tool threshold ${v.metric}: ${v.expression} failed`);
    }
    for (const row of report.rows.filter((r) => r.verdict === "regressed")) {
      reasons.push(
        `${row.label} regressed ${row.delta === null ? `from ${row.base} to ${row.head}` : formatDeltaPct(row.delta)} (tolerance ${tolerance}%)`,
      );
    }
    const origin = requestOrigin(req);
    const body: TRestCompareResult = {
      base: ZRestRunSummary.parse(presentRun(base, origin)),
      head: ZRestRunSummary.parse(presentRun(head, origin)),
      tolerancePct: tolerance,
      metrics: report.rows,
      regressed: report.regressed,
      improved: report.improved,
      thresholds,
      passed: reasons.length === 0,
      reasons,
    };
    return json(200, body);
  } catch (err) {
    return restErrorResponse(err, "GET /compare");
  }
}
