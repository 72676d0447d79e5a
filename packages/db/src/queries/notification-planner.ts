import {
  DEFAULT_REGRESSION_METRICS,
  derivedContext,
  detectChangePoints,
  evaluateRegressions,
  formatDeltaPct,
  formatMetric,
  metricDef,
  notificationFigure,
  type TNotificationData,
  withDerivedMetrics,
} from "@benchboard/core";
import type { Db } from "../client";
import { AGENT_OFFLINE_AFTER_MS } from "./agent";
import { endpointsFor, insertEvents, type NewEvent, recordNotificationEvent } from "./notification";
import { LOCAL_ORG_SLUG } from "./org";
import { scenarioHistory } from "./trend";
import { findBranchBaseline, storedThresholds } from "./upload";

/**
 * What an ended run has to tell: failed, invalid, thresholds failed or not measured, a
 * regression beyond a rule's tolerance against its baseline branch's latest run, a change point in
 * the scenario's trend. Planned once per run — the run's `notifiedAt` is set in the same
 * transaction that records the events — by whichever process sweeps first, so a crash between
 * a run ending and its notifications only delays them.
 */

export interface PlanOptions {
  /** The web app's public address, for links to runs and comparisons. */
  publicUrl: string;
  now?: Date;
  take?: number;
}

const RUN_SELECT = {
  id: true,
  orgId: true,
  projectId: true,
  scenarioId: true,
  scenarioName: true,
  number: true,
  status: true,
  error: true,
  source: true,
  agentLabel: true,
  startedAt: true,
  endedAt: true,
  branch: true,
  commit: true,
  createdAt: true,
  configSnapshot: true,
  scenarioSnapshot: true,
  project: { select: { name: true } },
  org: { select: { name: true } },
  result: { select: { metrics: true, valid: true, invalidReasons: true, thresholdResults: true, extra: true } },
} as const;

type PlannedRun = NonNullable<Awaited<ReturnType<typeof loadRun>>>;

function loadRun(db: Db, id: string) {
  return db.run.findUnique({ where: { id }, select: RUN_SELECT });
}

/** Plan the notifications of runs that ended and were not looked at yet; returns deliveries to queue. */
export async function planRunNotifications(db: Db, options: PlanOptions): Promise<string[]> {
  const due = await db.run.findMany({
    where: { notifiedAt: null, endedAt: { not: null } },
    orderBy: { endedAt: "asc" },
    take: options.take ?? 20,
    select: { id: true },
  });
  const deliveries: string[] = [];
  for (const { id } of due) deliveries.push(...(await planRun(db, id, options)));
  return deliveries;
}

export async function planRun(db: Db, runId: string, options: PlanOptions): Promise<string[]> {
  const run = await loadRun(db, runId);
  if (!run) return [];
  const scope = { projectId: run.projectId, scenarioId: run.scenarioId };
  const planned: { event: NewEvent; endpointIds: string[] }[] = [];
  const base = runData(run, options.publicUrl);
  const add = async (event: NewEvent) => {
    const targets = await endpointsFor(db, run.orgId, event.kind, scope);
    const endpointIds = [...new Set(targets.flatMap((t) => t.endpointIds))];
    if (endpointIds.length) planned.push({ event, endpointIds });
  };

  await add({
    kind: "run.finished",
    dedupeKey: `run.finished:${run.id}`,
    data: {
      ...base,
      title: `${titleOf(run)} ${run.status === "succeeded" ? "finished" : run.status}`,
      verdict: run.status,
      summary: finishedSummary(run),
      figures: finishedFigures(run),
    },
  });
  if (run.status === "failed") {
    await add({
      kind: "run.failed",
      dedupeKey: `run.failed:${run.id}`,
      data: { ...base, title: `${titleOf(run)} failed`, verdict: "failed", summary: run.error ?? "the run failed" },
    });
  }
  if (run.result && !run.result.valid) {
    await add({
      kind: "run.invalid",
      dedupeKey: `run.invalid:${run.id}`,
      data: {
        ...base,
        title: `${titleOf(run)} is not a valid measurement`,
        verdict: "invalid",
        summary: run.result.invalidReasons.join("; ") || "the engine flagged the run invalid",
      },
    });
  }
  if (run.result) {
    const thresholds = storedThresholds(run.result);
    const failed = thresholds.verdicts.filter((v) => v.status === "fail");
    const toolFailed = thresholds.tool.filter((t) => !t.passed);
    if (failed.length || toolFailed.length) {
      const figures = [
        ...failed.map((v) =>
          notificationFigure(
            v.metric,
            v.actual,
            v.value,
            (f) => `${f.label} ${v.op} ${f.expected} failed: ${f.value} (${f.delta} against the limit)`,
          ),
        ),
        ...toolFailed.map((t) => ({
          metric: t.metric,
          label: t.metric,
          unit: "",
          value: null,
          text: `tool threshold ${t.metric}: ${t.expression} failed`,
        })),
      ];
      await add({
        kind: "thresholds.failed",
        dedupeKey: `thresholds.failed:${run.id}`,
        data: {
          ...base,
          title: `${titleOf(run)} failed ${figures.length} threshold${figures.length === 1 ? "" : "s"}`,
          verdict: "failed",
          summary: `outside the limit: ${figures.map((f) => f.label).join(", ")}`,
          figures,
        },
      });
    }
    const unmeasured = thresholds.verdicts.filter((v) => v.status === "not_measured");
    if (unmeasured.length) {
      await add({
        kind: "thresholds.not_measured",
        dedupeKey: `thresholds.not_measured:${run.id}`,
        data: {
          ...base,
          title: `${titleOf(run)}: ${unmeasured.length} threshold${unmeasured.length === 1 ? "" : "s"} not measured`,
          verdict: "invalid",
          summary: unmeasured
            .map(
              (v) =>
                `${metricDef(v.metric).label} ${v.op} ${formatMetric(v.metric, v.value)} not measured${v.note ? ` (${v.note})` : ""}`,
            )
            .join("; "),
          figures: unmeasured.map((v) =>
            notificationFigure(v.metric, null, v.value, (f) => `${f.label} ${v.op} ${f.expected}: not measured`),
          ),
        },
      });
    }
  }
  if (run.status === "succeeded" && run.result) {
    await planRegressions(db, run, base, planned, options.publicUrl);
    await planChangePoints(db, run, base, planned);
  }

  return db.$transaction(async (tx) => {
    // Whoever sets notifiedAt first plans the run; a second sweeper records nothing.
    const { count } = await tx.run.updateMany({
      where: { id: run.id, notifiedAt: null },
      data: { notifiedAt: options.now ?? new Date() },
    });
    if (!count) return [];
    return insertEvents(tx, run.orgId, planned, options.now);
  });
}

/**
 * Runs that started and whose start was not looked at yet: a launched run announces
 * `run.started` once (uploads and imports start and end in one step, so they only finish).
 * The run's `startNotifiedAt` is set in the transaction that records the event.
 */
export async function planRunStarts(db: Db, options: PlanOptions): Promise<string[]> {
  const due = await db.run.findMany({
    where: { startNotifiedAt: null, startedAt: { not: null } },
    orderBy: { startedAt: "asc" },
    take: options.take ?? 20,
    select: { id: true },
  });
  const deliveries: string[] = [];
  for (const { id } of due) deliveries.push(...(await planRunStart(db, id, options)));
  return deliveries;
}

async function planRunStart(db: Db, runId: string, options: PlanOptions): Promise<string[]> {
  const run = await loadRun(db, runId);
  if (!run) return [];
  const planned: { event: NewEvent; endpointIds: string[] }[] = [];
  if (run.source === "launched" && run.startedAt) {
    const targets = await endpointsFor(db, run.orgId, "run.started", {
      projectId: run.projectId,
      scenarioId: run.scenarioId,
    });
    const endpointIds = [...new Set(targets.flatMap((t) => t.endpointIds))];
    const where = run.agentLabel ? `on an agent labelled ${run.agentLabel}` : "on the install's workers";
    if (endpointIds.length) {
      planned.push({
        event: {
          kind: "run.started",
          dedupeKey: `run.started:${run.id}`,
          data: {
            ...runData(run, options.publicUrl),
            title: `${titleOf(run)} started`,
            verdict: "started",
            summary: `started ${where} at ${run.startedAt.toISOString()}`,
          },
        },
        endpointIds,
      });
    }
  }
  return db.$transaction(async (tx) => {
    const { count } = await tx.run.updateMany({
      where: { id: run.id, startNotifiedAt: null },
      data: { startNotifiedAt: options.now ?? new Date() },
    });
    if (!count) return [];
    return insertEvents(tx, run.orgId, planned, options.now);
  });
}

function finishedSummary(run: PlannedRun): string {
  const took =
    run.startedAt && run.endedAt
      ? ` after ${Math.round((run.endedAt.getTime() - run.startedAt.getTime()) / 1000)} s`
      : "";
  switch (run.status) {
    case "succeeded": {
      const reading = run.result && !run.result.valid ? "; the measurement is flagged invalid" : "";
      return `succeeded${took}${reading}`;
    }
    case "failed":
      return `failed${took}: ${run.error ?? "the run failed"}`;
    case "canceled":
      return `canceled${took}`;
    default:
      return `${run.status}${took}`;
  }
}

/** The headline figures of a finished run (those it measured). */
function finishedFigures(run: PlannedRun) {
  if (!run.result) return [];
  const metrics = metricsOf(run);
  return ["rps", "latency_p99", "success_rate"]
    .filter((key) => Number.isFinite(metrics[key]))
    .map((key) => notificationFigure(key, metrics[key]!, null, (f) => `${f.label}: ${f.value}`));
}

function titleOf(run: PlannedRun): string {
  return `${run.project.name} / ${run.scenarioName || "run"} #${run.number}`;
}

function runData(run: PlannedRun, publicUrl: string): Omit<TNotificationData, "title" | "verdict" | "summary"> {
  return {
    organization: run.org.name,
    run: {
      id: run.id,
      number: run.number,
      project: run.project.name,
      scenario: run.scenarioName,
      branch: run.branch,
      commit: run.commit,
      status: run.status,
    },
    figures: [],
    links: [{ label: "Open the run", url: `${publicUrl.replace(/\/+$/, "")}/runs/${run.id}` }],
  };
}

function metricsOf(run: { result: { metrics: unknown } | null; configSnapshot: unknown; scenarioSnapshot: unknown }) {
  const stored = (run.result?.metrics ?? {}) as Record<string, number>;
  return withDerivedMetrics(stored, derivedContext(run.configSnapshot, run.scenarioSnapshot));
}

async function planRegressions(
  db: Db,
  run: PlannedRun,
  base: ReturnType<typeof runData>,
  planned: { event: NewEvent; endpointIds: string[] }[],
  publicUrl: string,
) {
  const targets = await endpointsFor(db, run.orgId, "regression.detected", {
    projectId: run.projectId,
    scenarioId: run.scenarioId,
  });
  // Rules that judge alike share one event.
  const byJudgment = new Map<string, { branch: string; tolerancePct: number; endpointIds: Set<string> }>();
  for (const { rule, endpointIds } of targets) {
    const key = `${rule.baselineBranch}:${rule.tolerancePct}`;
    const entry = byJudgment.get(key) ?? {
      branch: rule.baselineBranch,
      tolerancePct: rule.tolerancePct,
      endpointIds: new Set(),
    };
    for (const id of endpointIds) entry.endpointIds.add(id);
    byJudgment.set(key, entry);
  }
  for (const { branch, tolerancePct, endpointIds } of byJudgment.values()) {
    if (!endpointIds.size) continue;
    const found = await findBranchBaseline(db, run.orgId, run, branch);
    if (!found) continue;
    const baseline = await loadRun(db, found.id);
    if (!baseline?.result) continue;
    const report = evaluateRegressions(metricsOf(baseline), metricsOf(run), { tolerancePct });
    const regressed = report.rows.filter((r) => r.verdict === "regressed");
    if (!regressed.length) continue;
    const figures = regressed.map((r) =>
      notificationFigure(
        r.key,
        r.head,
        r.base,
        (f) =>
          `${f.label}: ${f.value} vs ${f.expected} on ${branch} (${r.delta === null ? "from zero" : formatDeltaPct(r.delta)})`,
      ),
    );
    const root = publicUrl.replace(/\/+$/, "");
    planned.push({
      event: {
        kind: "regression.detected",
        dedupeKey: `regression.detected:${run.id}:${branch}:${tolerancePct}`,
        data: {
          ...base,
          title: `${titleOf(run)} regressed against ${branch}`,
          verdict: "regressed",
          summary: `${regressed.length} metric${regressed.length === 1 ? "" : "s"} worse than run #${baseline.number} of ${branch} by more than ${tolerancePct}%`,
          figures,
          links: [
            ...base.links,
            {
              label: "Compare with the baseline",
              url: `${root}/compare?runs=${baseline.id},${run.id}&baseline=${baseline.id}`,
            },
          ],
        },
      },
      endpointIds: [...endpointIds],
    });
  }
}

async function planChangePoints(
  db: Db,
  run: PlannedRun,
  base: ReturnType<typeof runData>,
  planned: { event: NewEvent; endpointIds: string[] }[],
) {
  const targets = await endpointsFor(db, run.orgId, "change_point.detected", {
    projectId: run.projectId,
    scenarioId: run.scenarioId,
  });
  const endpointIds = [...new Set(targets.flatMap((t) => t.endpointIds))];
  if (!endpointIds.length) return;
  const history = await scenarioHistory(db, run.orgId, {
    projectId: run.projectId,
    scenarioName: run.scenarioName,
    branch: run.branch,
    through: run.createdAt,
  });
  for (const metric of DEFAULT_REGRESSION_METRICS) {
    const line = history.filter((r) => Number.isFinite(r.metrics[metric]));
    if (line.length < 6) continue;
    const found = detectChangePoints(line.map((r) => r.metrics[metric]!)).at(-1);
    if (!found) continue;
    const at = line[found.index]!;
    planned.push({
      // Keyed by the run where the change begins: announced once, when it first shows.
      event: {
        kind: "change_point.detected",
        dedupeKey: `change_point.detected:${run.projectId}:${run.scenarioName}:${run.branch ?? ""}:${metric}:${at.runId}`,
        data: {
          ...base,
          title: `Change point in ${run.project.name} / ${run.scenarioName}: ${metricDef(metric).label}`,
          verdict: "changed",
          summary: `${metricDef(metric).label} moved from ${formatMetric(metric, found.before)} to ${formatMetric(metric, found.after)} (${formatDeltaPct(found.change)}) starting at run #${at.number}${run.branch ? ` on ${run.branch}` : ""}`,
          figures: [
            notificationFigure(
              metric,
              found.after,
              found.before,
              (f) => `${f.label}: ${f.expected} → ${f.value} (${f.delta})`,
            ),
          ],
        },
      },
      endpointIds,
    });
  }
}

// ---- workers and agents --------------------------------------------------------------------

/** A worker that wrote no heartbeat for this long is offline. */
export const WORKER_OFFLINE_NOTIFY_AFTER_MS = 60_000;
/**
 * Silences are looked for this far back: each sweep looks at the workers and agents that went
 * quiet within the window (the event's key makes a repeat a no-op), not at every row that ever
 * went quiet. A silence older than this when the first notifier starts is not announced.
 */
export const OFFLINE_LOOKBACK_MS = 60 * 60_000;

/**
 * Workers that stopped heartbeating: told once per silence (the key includes the last
 * heartbeat) to the install's own organization, whose operator runs the workers.
 */
export async function planWorkerOffline(
  db: Db,
  options: { now?: Date; offlineAfterMs?: number; lookbackMs?: number } = {},
): Promise<string[]> {
  const now = options.now ?? new Date();
  const cutoff = new Date(now.getTime() - (options.offlineAfterMs ?? WORKER_OFFLINE_NOTIFY_AFTER_MS));
  const since = new Date(cutoff.getTime() - (options.lookbackMs ?? OFFLINE_LOOKBACK_MS));
  const silent = await db.worker.findMany({
    where: { heartbeatAt: { lt: cutoff, gte: since } },
    orderBy: { heartbeatAt: "desc" },
    take: 50,
  });
  if (!silent.length) return [];
  const org = await db.organization.findUnique({ where: { slug: LOCAL_ORG_SLUG }, select: { id: true, name: true } });
  if (!org) return [];
  const deliveries: string[] = [];
  for (const w of silent) {
    const seconds = Math.round((now.getTime() - w.heartbeatAt.getTime()) / 1000);
    deliveries.push(
      ...(await recordNotificationEvent(db, org.id, {
        kind: "worker.offline",
        dedupeKey: `worker.offline:${w.id}:${w.heartbeatAt.toISOString()}`,
        data: {
          title: `Worker ${w.id} is offline`,
          verdict: "offline",
          summary: `no heartbeat from ${w.host} (pid ${w.pid}) for ${seconds} s; runs it held are ended by the watchdog`,
          organization: org.name,
          figures: [],
          links: [],
          subject: { id: w.id, name: `worker ${w.id}`, lastSeenAt: w.heartbeatAt.toISOString() },
        },
      })),
    );
  }
  return deliveries;
}

/** A load agent went offline: told once per silence (the key includes its last heartbeat). */
export async function notifyAgentOffline(
  db: Db,
  agent: { orgId: string; id: string; name: string; lastSeenAt: Date },
): Promise<string[]> {
  const org = await db.organization.findUnique({ where: { id: agent.orgId }, select: { name: true } });
  if (!org) return [];
  return recordNotificationEvent(db, agent.orgId, {
    kind: "agent.offline",
    dedupeKey: `agent.offline:${agent.id}:${agent.lastSeenAt.toISOString()}`,
    data: {
      title: `Load agent ${agent.name} is offline`,
      verdict: "offline",
      summary: `no heartbeat from agent ${agent.name} since ${agent.lastSeenAt.toISOString()}`,
      organization: org.name,
      figures: [],
      links: [],
      subject: { id: agent.id, name: agent.name, lastSeenAt: agent.lastSeenAt.toISOString() },
    },
  });
}

/**
 * Load agents that stopped heartbeating without saying they stopped (killed, crashed, cut off):
 * `agent.offline` to their organization, once per silence. An agent that said it stopped
 * (`--once` after its run, a shutdown) is not announced: nothing went wrong.
 */
export async function planAgentOffline(
  db: Db,
  options: { now?: Date; offlineAfterMs?: number; lookbackMs?: number } = {},
): Promise<string[]> {
  const now = options.now ?? new Date();
  const cutoff = new Date(now.getTime() - (options.offlineAfterMs ?? AGENT_OFFLINE_AFTER_MS));
  const since = new Date(cutoff.getTime() - (options.lookbackMs ?? OFFLINE_LOOKBACK_MS));
  const silent = await db.agent.findMany({
    where: { stoppedAt: null, lastSeenAt: { lt: cutoff, gte: since } },
    orderBy: { lastSeenAt: "desc" },
    take: 50,
    select: { id: true, orgId: true, name: true, lastSeenAt: true },
  });
  const deliveries: string[] = [];
  for (const agent of silent) deliveries.push(...(await notifyAgentOffline(db, agent)));
  return deliveries;
}
