import {
  derivedContext,
  detectChangePoints,
  formatDeltaPct,
  formatMetric,
  type GateOutcome,
  gateMetricKeys,
  judgeMetric,
  metricDef,
  withDerivedMetrics,
} from "@benchboard/core";
import { branchBaselineRuns, scenarioHistory, storedThresholds } from "@benchboard/db";
import { authorize, type RestDeps } from "./auth";
import { json, RestError, type RestRequest, type RestResponse, restErrorResponse, zodFailure } from "./http";
import { linkOrigin, loadRun, presentRun } from "./runs";
import { type TRestCompareResult, ZRestCompareQuery, ZRestRunSummary } from "./schemas";

const BRANCH_PREFIX = "branch:";

type LoadedRun = Awaited<ReturnType<typeof loadRun>>;

/** The run's metrics with the derived ones (req/s per vCPU, …) computed from its snapshots. */
function metricsOf(run: LoadedRun): Record<string, number> {
  const metrics = (run.result?.metrics ?? {}) as Record<string, number>;
  return withDerivedMetrics(metrics, derivedContext(run.configSnapshot, run.scenarioSnapshot));
}

/**
 * GET /api/v1/compare?base=…&head=…&tolerance=5: head against a baseline, metric by metric, with
 * head's threshold verdicts, and the gate's outcome: pass, fail, or inconclusive when it could not
 * judge. `base=branch:<name>` is the branch's last `history` runs of head's scenario and config;
 * `base=<run id>` is that one run, which shows no noise: only `gate=tolerance` judges against it.
 */
export async function compareHandler(req: RestRequest, deps: RestDeps): Promise<RestResponse> {
  try {
    const api = await authorize(req, deps, "runs:read");
    const query = ZRestCompareQuery.safeParse(Object.fromEntries(new URL(req.url).searchParams));
    if (!query.success) throw zodFailure(query.error);
    const { head: headRef, tolerance, metrics, gate, alpha, history } = query.data;

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
    const { base, baseline, baseBranch, inconclusive } = await loadBaseline(api, deps, head, query.data);

    const headMetrics = metricsOf(head);
    const keys = gateMetricKeys(
      baseline.map((b) => b.metrics),
      headMetrics,
      metrics,
    );
    const rows = keys.map((key) => {
      const def = metricDef(key);
      const values = baseline.map((b) => b.metrics[key]).filter((v): v is number => Number.isFinite(v));
      const judged = judgeMetric(key, values, headMetrics[key] ?? null, { tolerancePct: tolerance, gate, alpha });
      return { key, label: def.label, unit: def.unit, direction: def.direction, ...judged };
    });
    const unknown = rows.filter((r) => r.verdict === "inconclusive");
    if (unknown.length) {
      inconclusive.push(
        `${unknown.map((r) => r.label).join(", ")}: beyond the ${tolerance}% tolerance, but ${unknown[0]!.note}`,
      );
    }
    for (const row of rows.filter((r) => r.verdict === "incomparable")) inconclusive.push(`${row.label}: ${row.note}`);
    // Nothing compared is nothing judged: a pass needs at least one metric both sides measured.
    if (rows.length === 0) inconclusive.push("neither side has a metric to compare");
    const thresholds = storedThresholds(head.result);
    const valid = head.result.valid;
    const invalidReasons = head.result.invalidReasons;

    // Change points in head's own history.
    const headHistory = await scenarioHistory(deps.db, api.token.orgId, {
      projectId: head.projectId,
      scenarioName: head.scenarioName,
      branch: head.branch,
      through: head.createdAt,
    });
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
          `threshold ${metricDef(v.metric).label} ${v.op} ${formatMetric(v.metric, v.value)} failed (was ${formatMetric(v.metric, v.actual)})`,
        );
      } else if (v.status === "not_measured" && !query.data.allowNotMeasured) {
        reasons.push(
          `threshold ${metricDef(v.metric).label} ${v.op} ${formatMetric(v.metric, v.value)} not measured${v.note ? ` (${v.note})` : ""}`,
        );
      }
    }
    for (const v of thresholds.tool.filter((t) => !t.passed)) {
      reasons.push(`tool threshold ${v.metric}: ${v.expression} failed`);
    }
    const against = baseBranch
      ? `the last ${baseline.length} ${baseline.length === 1 ? "run" : "runs"} of ${baseBranch}`
      : `base run #${base.number}`;
    for (const row of rows.filter((r) => r.verdict === "regressed")) {
      const change = row.delta === null ? `from ${formatMetric(row.key, row.base)}` : formatDeltaPct(row.delta);
      const p = row.noise?.pWorse;
      const why =
        gate === "tolerance" || p === null || p === undefined
          ? `beyond the ${tolerance}% tolerance`
          : gate === "statistical"
            ? `beyond the baseline's noise (p = ${p.toPrecision(2)} < ${alpha})`
            : `beyond the ${tolerance}% tolerance and the baseline's noise (p = ${p.toPrecision(2)} < ${alpha})`;
      reasons.push(
        `${row.label} regressed ${change} against ${against} (${baseline.length > 1 ? "median " : ""}${formatMetric(row.key, row.base)} → ${formatMetric(row.key, row.head)}): ${why}`,
      );
    }
    const outcome: GateOutcome = reasons.length ? "fail" : inconclusive.length ? "inconclusive" : "pass";
    const origin = linkOrigin(req, deps);
    const body: TRestCompareResult = {
      base: ZRestRunSummary.parse(presentRun(base, origin)),
      head: ZRestRunSummary.parse(presentRun(head, origin)),
      baseline: {
        branch: baseBranch,
        required: baseBranch ? history : 1,
        runs: baseline.map((b) => ({ id: b.runId, number: b.number })),
      },
      tolerancePct: tolerance,
      metrics: rows,
      regressed: rows.filter((r) => r.verdict === "regressed").map((r) => r.key),
      improved: rows.filter((r) => r.verdict === "improved").map((r) => r.key),
      gate,
      alpha,
      changePoints,
      thresholds,
      valid,
      invalidReasons,
      outcome,
      passed: outcome === "pass",
      reasons,
      inconclusiveReasons: inconclusive,
    };
    return json(200, body);
  } catch (err) {
    return restErrorResponse(err, "GET /compare");
  }
}

type BaselineRun = { runId: string; number: number; metrics: Record<string, number> };

/**
 * The runs head is judged against, its newest as `base`, and why they cannot judge it when they
 * cannot (each line makes the outcome inconclusive): a branch's last `history` runs of head's
 * scenario and config, or the one run `base` names.
 */
async function loadBaseline(
  api: Parameters<typeof loadRun>[0],
  deps: RestDeps,
  head: LoadedRun,
  query: { base: string; gate: string; history: number },
) {
  const { base: baseRef, gate, history } = query;
  const inconclusive: string[] = [];
  if (baseRef.startsWith(BRANCH_PREFIX)) {
    const branch = baseRef.slice(BRANCH_PREFIX.length).trim();
    if (!branch) throw new RestError(400, "base: name the branch, e.g. branch:main", { field: "base" });
    const baseline: BaselineRun[] = await branchBaselineRuns(deps.db, api.token.orgId, head, branch, history);
    const newest = baseline.at(-1);
    if (!newest) {
      throw new RestError(
        404,
        `base: no succeeded, valid run of branch "${branch}" for scenario "${head.scenarioName}" and head's config to compare with`,
        { field: "base" },
      );
    }
    if (baseline.length < history && gate !== "tolerance") {
      inconclusive.push(
        `the baseline has ${baseline.length} of the ${history} runs of ${branch} it needs (same scenario and config, succeeded and valid): too few to tell a change from noise`,
      );
    }
    return { base: await succeededBase(api, newest.runId), baseline, baseBranch: branch, inconclusive };
  }
  const base = await succeededBase(api, baseRef);
  if (!base.result.valid) {
    inconclusive.push(
      `base run #${base.number} is not a valid measurement${base.result.invalidReasons.length ? `: ${base.result.invalidReasons.join("; ")}` : ""}`,
    );
  }
  if (gate !== "tolerance") {
    inconclusive.push(
      `one base run shows nothing of its noise: compare against a branch (its last ${history} runs), or judge by the tolerance alone (gate=tolerance)`,
    );
  }
  const baseline: BaselineRun[] = [{ runId: base.id, number: base.number, metrics: metricsOf(base) }];
  return { base, baseline, baseBranch: null, inconclusive };
}

/** The base run, which must have succeeded with results. */
async function succeededBase(api: Parameters<typeof loadRun>[0], id: string) {
  const base = await loadRun(api, id, "base");
  if (base.status !== "succeeded" || !base.result) {
    throw new RestError(409, `base: run #${base.number} is ${base.status}; compare against a succeeded run`, {
      field: "base",
    });
  }
  return { ...base, result: base.result };
}
