import {
  derivedContext,
  detectChangePoints,
  evaluateRegressions,
  formatDeltaPct,
  formatMetric,
  metricDef,
  type RegressionRow,
  testAgainstHistory,
  withDerivedMetrics,
} from "@benchboard/core";
import { findBranchBaseline, scenarioHistory, storedThresholds } from "@benchboard/db";
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
    const { base: baseRef, head: headRef, tolerance, metrics, gate, alpha } = query.data;

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
    const valid = head.result.valid;
    const invalidReasons = head.result.invalidReasons;

    // Head against the latest runs of base's branch, and change points in head's own history.
    const [baseHistory, headHistory] = await Promise.all([
      scenarioHistory(deps.db, api.token.orgId, {
        projectId: head.projectId,
        scenarioName: head.scenarioName,
        branch: base.branch,
        beforeRunId: head.id,
        through: head.createdAt,
        take: query.data.history,
      }),
      scenarioHistory(deps.db, api.token.orgId, {
        projectId: head.projectId,
        scenarioName: head.scenarioName,
        branch: head.branch,
        through: head.createdAt,
      }),
    ]);
    const rows = report.rows.map((row) => ({ ...row, statistical: statisticalVerdict(row, baseHistory, head, alpha) }));
    const changePoints = rows.flatMap((row) => {
      const line = headHistory.filter((r) => Number.isFinite(r.metrics[row.key]));
      const found = detectChangePoints(line.map((r) => r.metrics[row.key]!)).at(-1);
      if (!found) return [];
      const at = line[found.index]!;
      return [{ metric: row.key, label: row.label, runId: at.runId, runNumber: at.number, ...found }];
    });

    const reasons: string[] = [];
    if (head.status !== "succeeded")
      reasons.push(`head run #${head.number} ${head.status}${head.error ? `: ${head.error}` : ""}`);
    if (!valid && !query.data.allowInvalid) {
      reasons.push(
        `head run #${head.number} is not a valid measurement${invalidReasons.length ? `: ${invalidReasons.join("; ")}` : ""}`,
      );
    }
    for (const v of thresholds.verdicts) {
      if (v.status === "fail") {
        reasons.push(
          `threshold ${metricDef(v.metric).label} ${v.op} ${v.value} failed (was ${formatMetric(v.metric, v.actual)})`,
        );
      } else if (v.status === "not_measured" && !query.data.allowNotMeasured) {
        reasons.push(
          `threshold ${metricDef(v.metric).label} ${v.op} ${v.value} not measured${v.note ? ` (${v.note})` : ""}`,
        );
      }
    }
    for (const v of thresholds.tool.filter((t) => !t.passed)) {
      reasons.push(`tool threshold ${v.metric}: ${v.expression} failed`);
    }
    if (gate !== "statistical") {
      for (const row of rows.filter((r) => r.verdict === "regressed")) {
        reasons.push(
          `${row.label} regressed ${row.delta === null ? `from ${row.base} to ${row.head}` : formatDeltaPct(row.delta)} (tolerance ${tolerance}%)`,
        );
      }
    }
    if (gate !== "tolerance") {
      for (const row of rows.filter((r) => r.statistical?.verdict === "regressed")) {
        const st = row.statistical!;
        reasons.push(
          `${row.label} regressed against the last ${st.n} runs of ${base.branch ?? "base's line"}: ${formatMetric(row.key, row.head)} vs mean ${formatMetric(row.key, st.mean)} (p = ${st.pValue.toPrecision(2)} < ${alpha})`,
        );
      }
    }
    const origin = requestOrigin(req);
    const body: TRestCompareResult = {
      base: ZRestRunSummary.parse(presentRun(base, origin)),
      head: ZRestRunSummary.parse(presentRun(head, origin)),
      tolerancePct: tolerance,
      metrics: rows,
      regressed: report.regressed,
      improved: report.improved,
      gate,
      alpha,
      changePoints,
      thresholds,
      valid,
      invalidReasons,
      passed: reasons.length === 0,
      reasons,
    };
    return json(200, body);
  } catch (err) {
    return restErrorResponse(err, "GET /compare");
  }
}

/** Head's value against the history's: regressed or improved when the test is significant at `alpha`. */
function statisticalVerdict(
  row: RegressionRow,
  history: readonly { runId: string; metrics: Record<string, number> }[],
  head: { id: string },
  alpha: number,
) {
  if (row.head === null) return null;
  const values = history
    .filter((r) => r.runId !== head.id && Number.isFinite(r.metrics[row.key]))
    .map((r) => r.metrics[row.key]!);
  const test = testAgainstHistory(values, row.head);
  if (!test) return null;
  let verdict: "regressed" | "improved" | "unchanged" = "unchanged";
  if (test.pValue < alpha && row.direction !== "neutral") {
    const higher = row.head > test.mean;
    verdict = (row.direction === "higher") === higher ? "improved" : "regressed";
  }
  return { ...test, z: Number.isFinite(test.z) ? test.z : null, verdict };
}
