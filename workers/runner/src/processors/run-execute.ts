import {
  type EngineProgress,
  type InstallSettings,
  resolveOrgCaps,
  type TRunResultData,
  ZScenarioSpec,
} from "@benchboard/core";
import {
  assertLoadMayReach,
  checkpointRun,
  claimRun,
  type Db,
  finishRun,
  getInstallSettings,
  isCancelRequested,
  LOCAL_ORG_SLUG,
  nextQueuedRunInGroup,
  recordProgress,
  requestsMayReach,
  resolveMonitors,
  runHeaders,
  touchRun,
  UNVERIFIED_REQUEST_MESSAGE,
} from "@benchboard/db";
import type { TRunExecutePayload } from "@benchboard/jobs";
import {
  DEAD_TARGET_MESSAGE,
  EngineConfigError,
  type EngineResult,
  runScenario,
  startMonitors,
} from "@benchboard/loadgen";
import { describeStatus, outboundRequest } from "@benchboard/loadgen/outbound";
import { type Resolve, resolveUrl, type SafetyPolicy } from "@benchboard/loadgen/target-safety";

export interface ProcessorDeps {
  db: Db;
  workerId: string;
  log: (line: string) => void;
  /** Decrypts the target's secret header values; null when the worker has no key. */
  secretKey?: Buffer | null;
  /** Queues a run; used to start the next repetition of a group when one ends. */
  enqueueRun?: (runId: string) => Promise<void>;
  /** How long a ready shard waits for its run's other shards before starting anyway. */
  shardStartWaitMs?: number;
  /** Install settings from the environment (the operator's stored edits are read on top). */
  install?: InstallSettings | null;
  /** Address lookup for targets; the system resolver when absent. */
  lookup?: Resolve;
}

const CANCEL_POLL_MS = 250;
const RUN_HEARTBEAT_MS = 2_000;

export interface TargetSnapshot {
  baseUrl: string;
  headers?: { name: string; value?: string }[];
}

export interface ConfigSnapshot {
  knobs?: Record<string, unknown>;
}

/**
 * Execute one run: claim it, apply its instance config, run the engine while relaying progress
 * and watching for cancellation, then store the result. Every path ends the run: a thrown error
 * becomes `failed` with a readable reason and whatever was measured.
 */
export async function handleRunExecute(deps: ProcessorDeps, payload: TRunExecutePayload): Promise<void> {
  const { db, log } = deps;
  const run = await claimRun(db, payload.runId, deps.workerId);
  if (!run) {
    log(`run ${payload.runId} is no longer queued; skipped`);
    // A repetition canceled while queued must not stall the rest of its group.
    await startNextInGroup(deps, payload.runId);
    return;
  }
  log(`run ${run.id} (#${run.number}) started`);
  let lastProgressWrite = 0;
  // The run's own heartbeat: the watchdog fails runs whose worker stops writing it.
  const watch = watchRun(db, run.id, () => touchRun(db, run.id));
  const abort = watch.abort;

  try {
    const { target, spec, caps, monitorConfigs, monitorOptions, headers, pin } = await prepareLoad(deps, run, {
      lead: true,
    });

    // The target is watched for exactly as long as the load runs, on the same clock.
    const monitors = startMonitors(monitorConfigs, monitorOptions);
    const live = new LiveSamples();
    let result: EngineResult;
    let watched: Awaited<ReturnType<typeof monitors.stop>>;
    try {
      result = await runScenario(spec, {
        baseUrl: target.baseUrl,
        headers,
        pin,
        signal: abort.signal,
        limits: { maxRate: caps.maxRate, maxConcurrency: caps.maxConnections, maxDurationS: caps.maxDurationS },
        onProgress: (p: EngineProgress) => {
          const now = Date.now();
          const snapshot = live.add(p, monitors.latest());
          if (now - lastProgressWrite < 900) return;
          lastProgressWrite = now;
          recordProgress(db, run.id, snapshot).catch(() => {});
        },
        onCheckpoint: (partial) => {
          checkpointRun(db, run.id, toResultData(partial)).catch(() => {});
        },
      });
    } finally {
      watched = await monitors.stop();
    }
    Object.assign(result.series, watched.series);
    Object.assign(result.metrics, watched.metrics);
    if (watched.errors.length) result.extra = { ...result.extra, monitorErrors: watched.errors };
    const outcome = judge(result);
    await finishRun(db, run.id, { ...outcome, result: toResultData(result) });
    log(`run ${run.id} ${outcome.status}${outcome.error ? `: ${outcome.error}` : ""}`);
  } catch (err) {
    const reason = describeError(err);
    log(`run ${run.id} failed: ${reason}`);
    await finishRun(db, run.id, { status: "failed", error: reason, result: null });
  } finally {
    watch.stop();
  }
  await startNextInGroup(deps, run.id);
}

/**
 * While load runs: a heartbeat every 2 s (the watchdog fails runs and shards whose worker stops
 * writing it) and a cancellation check every 250 ms that aborts the engine.
 */
export function watchRun(db: Db, runId: string, beat: () => Promise<void>): { abort: AbortController; stop(): void } {
  const abort = new AbortController();
  const heartbeat = setInterval(() => beat().catch(() => {}), RUN_HEARTBEAT_MS);
  const cancelPoll = setInterval(() => {
    isCancelRequested(db, runId)
      .then((cancel) => {
        if (cancel && !abort.signal.aborted) abort.abort();
      })
      .catch(() => {});
  }, CANCEL_POLL_MS);
  return {
    abort,
    stop() {
      clearInterval(heartbeat);
      clearInterval(cancelPoll);
    },
  };
}

type ClaimedRun = NonNullable<Awaited<ReturnType<typeof claimRun>>>;

/**
 * Everything a run (or shard) needs before load is sent: its target and spec from the
 * snapshots, the organization's caps, the monitors to watch, the address check, the secret
 * headers and — for the lead — the instance config applied to the target. Secret values come
 * from the target row (decrypted here), never from the snapshot, and are resolved before the
 * config is applied so a run that cannot send its headers changes nothing.
 */
export async function prepareLoad(deps: ProcessorDeps, run: ClaimedRun, options: { lead: boolean }) {
  const { db } = deps;
  const target = run.targetSnapshot as unknown as TargetSnapshot | null;
  if (!target?.baseUrl) throw new EngineConfigError("target", "the run has no target");
  const parsed = ZScenarioSpec.safeParse((run.scenarioSnapshot as { spec?: unknown } | null)?.spec);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new EngineConfigError(`scenario.${issue?.path.join(".")}`, issue?.message ?? "invalid");
  }
  const org = await db.organization.findUnique({ where: { id: run.orgId }, select: { caps: true, slug: true } });
  const caps = resolveOrgCaps(org?.caps);
  const installOrg = org?.slug === LOCAL_ORG_SLUG;
  const settings = await getInstallSettings(db, deps.install ?? undefined);
  const policy: SafetyPolicy = { allowList: settings.allowedTargets, resolve: deps.lookup };
  // Checked again right before load is sent, and the engine connects to the address checked
  // here: a name that resolved to an allowed address at registration may not do so now.
  const verdict = await resolveUrl(target.baseUrl, policy);
  if (!verdict.allowed) throw new Error(`refused to send load: ${verdict.reason}`);
  // The origin must still be verified (or the load a probe) when the run starts.
  await assertLoadMayReach(db, run.orgId, target.baseUrl, parsed.data);
  const resolved =
    options.lead && run.targetId
      ? await resolveMonitors(db, run.orgId, run.targetId, null, { secretKey: deps.secretKey })
      : [];
  // A tenant's monitors read only origins it verified; the others are left out of the run.
  const monitorConfigs: typeof resolved = [];
  for (const m of resolved) {
    if ("url" in m && !(await requestsMayReach(db, run.orgId, m.url))) {
      deps.log(`run ${run.id}: monitor ${new URL(m.url).origin} skipped: not verified`);
      continue;
    }
    monitorConfigs.push(m);
  }
  const monitorOptions = { policy, allowProcess: installOrg };
  const headers = runHeaders(target.headers, run.target, deps.secretKey);
  const applyUrl = run.target?.configApplyUrl ?? null;
  if (options.lead && applyUrl && !(await requestsMayReach(db, run.orgId, applyUrl))) {
    throw new Error(`refused to apply the instance config: ${new URL(applyUrl).origin} ${UNVERIFIED_REQUEST_MESSAGE}`);
  }
  if (options.lead) {
    await applyInstanceConfig(run.target?.configApplyUrl ?? null, run.configSnapshot as ConfigSnapshot | null, policy);
  }
  return { target, spec: parsed.data, caps, monitorConfigs, monitorOptions, headers, pin: verdict.pin };
}

/**
 * Repetitions run back to back: when a run of a group has ended, queue the group's next queued
 * run. If that cannot be queued, the rest of the group fails with the reason instead of waiting
 * for a job that will never come.
 */
export async function startNextInGroup(deps: ProcessorDeps, runId: string): Promise<void> {
  if (!deps.enqueueRun) return;
  const next = await nextQueuedRunInGroup(deps.db, runId).catch((err: Error) => {
    deps.log(`could not look up the next run after ${runId}: ${err.message}`);
    return null;
  });
  if (!next) return;
  try {
    await deps.enqueueRun(next.id);
    deps.log(`run ${next.id} queued (next repetition after ${runId})`);
  } catch (err) {
    const reason = `could not queue the run: ${describeError(err)}`;
    deps.log(`run ${next.id}: ${reason}`);
    await deps.db.run
      .updateMany({
        where: { groupId: next.groupId, status: "queued" },
        data: { status: "failed", error: reason, endedAt: new Date() },
      })
      .catch(() => {});
  }
}

/** A run where nothing succeeded did not test the service: it failed, with the dominant error. */
export function judge(result: EngineResult): { status: "succeeded" | "failed" | "canceled"; error: string | null } {
  if (result.canceled) return { status: "canceled", error: "canceled by request" };
  if (result.extra?.deadTarget === true) return { status: "failed", error: DEAD_TARGET_MESSAGE };
  const requests = result.metrics.requests ?? 0;
  const success = result.metrics.success ?? 0;
  const failed = result.metrics.failed ?? 0;
  const top = [...result.errors].sort((a, b) => b.count - a.count)[0];
  const what = top ? `${top.message || top.kind}` : "every request failed";
  if (requests > 0 && success === 0) {
    return {
      status: "failed",
      error: `target unreachable or failing: ${what} (${requests} of ${requests} requests failed)`,
    };
  }
  if (requests === 0 && result.metrics.messages === undefined) {
    return { status: "failed", error: "no requests were completed" };
  }
  const downFor = trailingOutageSeconds(result);
  if (downFor >= TARGET_DOWN_AFTER_S) {
    const runtimeS = Math.round((result.metrics.runtime_ms ?? 0) / 1000);
    return {
      status: "failed",
      error: `target stopped answering for the last ${downFor} s of ${runtimeS} s: ${what} (${failed} of ${requests} requests failed; results until then are kept)`,
    };
  }
  return { status: "succeeded", error: null };
}

/** Seconds at the end of the run in which requests were sent and every one of them failed. */
const TARGET_DOWN_AFTER_S = 3;
function trailingOutageSeconds(result: EngineResult): number {
  const sent = result.series.rps?.values ?? [];
  const errors = result.series.errors?.values ?? [];
  let seconds = 0;
  for (let i = sent.length - 1; i >= 0; i--) {
    // The rate series counts answered requests; refused connections show only as errors.
    const n = sent[i] ?? 0;
    const failed = errors[i] ?? 0;
    if (n === 0 && failed === 0) {
      // A final partial second with nothing sent neither proves nor disproves an outage.
      if (seconds === 0 && i === sent.length - 1) continue;
      break;
    }
    if (failed < n) break;
    seconds++;
  }
  return seconds;
}

export function toResultData(result: EngineResult): TRunResultData {
  const { startedAt: _s, endedAt: _e, canceled: _c, ...data } = result;
  return data;
}

/**
 * The last few minutes of per-second figures, kept in the run's progress so the live page can
 * draw rate, latency, errors, target memory and queue depth while the run goes on.
 */
const LIVE_SAMPLES = 300;
export interface LiveSample {
  t: number;
  rps: number;
  p50: number | null;
  p99: number | null;
  errors: number;
  mem: number | null;
  cpu: number | null;
  queue: number | null;
}
export class LiveSamples {
  private readonly samples: LiveSample[] = [];
  add(
    p: EngineProgress,
    monitors: Record<string, number | null>,
  ): EngineProgress & { samples: LiveSample[]; monitors: Record<string, number | null> } {
    this.samples.push({
      t: Date.now(),
      rps: p.rps,
      p50: p.latencyP50Ms,
      p99: p.latencyP99Ms,
      errors: p.errors,
      mem: monitors.mem_bytes ?? null,
      cpu: monitors.cpu_cores ?? null,
      queue: monitors.queue_depth ?? monitors["gauge.queue_depth"] ?? null,
    });
    if (this.samples.length > LIVE_SAMPLES) this.samples.shift();
    return { ...p, samples: [...this.samples], monitors };
  }
}

/**
 * PUT the instance config's knobs to the target's config-apply URL, through the outbound client:
 * the checked address, no redirects, bounded time, and an error that names the status and size
 * but never repeats what the target answered.
 */
export async function applyInstanceConfig(
  url: string | null,
  config: ConfigSnapshot | null,
  policy: SafetyPolicy,
): Promise<void> {
  if (!url || !config?.knobs || Object.keys(config.knobs).length === 0) return;
  let res: Awaited<ReturnType<typeof outboundRequest>>;
  try {
    res = await outboundRequest(url, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(config.knobs),
      timeoutMs: 10_000,
      maxBytes: 64 * 1024,
      policy,
    });
  } catch (err) {
    throw new Error(`applying the instance config failed: ${(err as Error).message}`);
  }
  if (res.status < 200 || res.status >= 300) {
    throw new Error(`the target rejected the instance config (${describeStatus(res)})`);
  }
}

export function describeError(err: unknown): string {
  if (err instanceof EngineConfigError) return `invalid ${err.field}: ${err.message.replace(`${err.field}: `, "")}`;
  const e = err as { message?: string; cause?: { code?: string; message?: string } };
  const cause = e.cause?.code ?? e.cause?.message;
  return [e.message ?? String(err), cause].filter(Boolean).join(" — ");
}
