import {
  allowListForOrg,
  type EngineProgress,
  type InstallSettings,
  judge,
  LiveSamples,
  PROBE_RATE_PER_S,
  probeSpec,
  type TRunResultData,
  withTargetSignals,
  ZScenarioSpec,
} from "@benchboard/core";
import {
  assertLoadMayReach,
  checkpointRun,
  claimRun,
  continueGroup,
  type Db,
  finishRun,
  getInstallSettings,
  type LifecycleDeps,
  mayKeepSending,
  orgLoadPolicy,
  recordProgress,
  recordServerConfig,
  requestsMayReach,
  resolveMonitors,
  runHeaders,
  touchRun,
  UNVERIFIED_REQUEST_MESSAGE,
  whileDatabaseReturns,
} from "@benchboard/db";
import type { TRunExecutePayload } from "@benchboard/jobs";
import {
  applyServerConfig,
  askUntilAnswered,
  checkpointWithMonitors,
  EngineConfigError,
  type EngineResult,
  type Knobs,
  knobsForRun,
  runScenario,
  type Stall,
  startMonitors,
} from "@benchboard/loadgen";
// Not from the package index: the web app bundles that, and a thread's entry is no module for it.
import { runScenarioInThread } from "@benchboard/loadgen/engine-thread";
import { type Resolve, resolveUrl, type SafetyPolicy } from "@benchboard/loadgen/target-safety";

export interface ProcessorDeps {
  db: Db;
  workerId: string;
  log: (line: string) => void;
  /** Decrypts the target's secret header values; null when the worker has no key. */
  secretKey?: Buffer | null;
  /** Queues runs (the next of a group) and merges shards: the run lifecycle's dependencies. */
  lifecycle: LifecycleDeps;
  /** How long a ready shard waits for its run's other shards before starting anyway. */
  shardStartWaitMs?: number;
  /** Aborted when the worker shuts down: in-flight runs stop and keep what they measured. */
  shutdown?: AbortSignal;
  /** Run open-model runs at real-time scheduling where permitted (see `EngineContext.realtime`). */
  engineRealtime?: boolean;
  /** Run the engine on a thread of its own, away from this process's other work (see `runScenarioInThread`). */
  engineThread?: boolean;
  /** Install settings from the environment (the operator's stored edits are read on top). */
  install?: InstallSettings | null;
  /** Address lookup for targets; the system resolver when absent. */
  lookup?: Resolve;
}

/** Why a run stopped by its worker's shutdown ended `canceled`. */
export const SHUTDOWN_REASON = "worker shutting down; partial results kept";

const CANCEL_POLL_MS = 250;
const RUN_HEARTBEAT_MS = 2_000;
/** How long PostgreSQL may take to confirm, after a stall, that a run still runs. */
const STALL_CONFIRM_MS = 10_000;

export interface TargetSnapshot {
  baseUrl: string;
  headers?: { name: string; value?: string }[];
  configApplyUrl?: string | null;
  baselineKnobs?: Knobs | null;
}

export interface ConfigSnapshot {
  knobs?: Knobs;
}

/**
 * Execute one run: claim it, apply its instance config, run the engine while relaying progress
 * and watching for cancellation, then store the result. Every path ends the run: a thrown error
 * becomes `failed` with a readable reason and whatever was measured.
 */
export async function handleRunExecute(deps: ProcessorDeps, payload: TRunExecutePayload): Promise<void> {
  const { db, log } = deps;
  // A PostgreSQL restart must not fail the job: the queue would not offer it again.
  const run = await whileDatabaseReturns(() => claimRun(db, payload.runId, deps.workerId), {
    log,
    what: `run ${payload.runId}: claim`,
  });
  if (!run) {
    log(`run ${payload.runId} is no longer queued; skipped`);
    // A repetition canceled while queued must not stall the rest of its group.
    await continueGroup(db, payload.runId, deps.lifecycle);
    return;
  }
  log(`run ${run.id} (#${run.number}) started`);
  let lastProgressWrite = 0;
  // The run's own heartbeat: the watchdog fails runs whose worker stops writing it.
  const watch = watchRun(db, run.id, () => touchRun(db, run.id), { shutdown: deps.shutdown, log });
  const abort = watch.abort;

  try {
    const { target, spec, limits, monitorConfigs, monitorOptions, headers, pin, serverConfig } = await prepareLoad(
      deps,
      run,
      { lead: true },
    );
    await recordServerConfig(db, run.id, serverConfig);

    // The target is watched for exactly as long as the load runs, on the same clock.
    const monitors = startMonitors(monitorConfigs, monitorOptions);
    const live = new LiveSamples();
    let result: EngineResult;
    let watched: Awaited<ReturnType<typeof monitors.stop>>;
    try {
      result = await (deps.engineThread ? runScenarioInThread : runScenario)(spec, {
        baseUrl: target.baseUrl,
        headers,
        pin,
        realtime: deps.engineRealtime ?? false,
        signal: abort.signal,
        limits,
        confirmAfterStall: watch.confirmAfterStall,
        onProgress: (p: EngineProgress) => {
          const now = Date.now();
          const snapshot = live.add(p, monitors.latest());
          if (now - lastProgressWrite < 900) return;
          lastProgressWrite = now;
          recordProgress(db, run.id, snapshot).catch(() => {});
        },
        // With the monitors' series so far: kept if this worker dies before the end.
        onCheckpoint: checkpointWithMonitors(
          () => monitors,
          (partial) => checkpointRun(db, run.id, toResultData(partial)),
        ),
      });
    } finally {
      watched = await monitors.stop();
    }
    Object.assign(result.series, watched.series);
    Object.assign(result.metrics, watched.metrics);
    if (watched.errors.length) result.extra = { ...result.extra, monitorErrors: watched.errors };
    // With the target's own signals beside the engine's: when it says it was the limit, say so first.
    result = withTargetSignals(result);
    const outcome = stoppedByShutdown(deps, judge(result));
    // What was measured is stored even if PostgreSQL is restarting as the load ends.
    await whileDatabaseReturns(() => finishRun(db, run.id, { ...outcome, result: toResultData(result) }), {
      log,
      what: `run ${run.id}: store the result`,
    });
    log(`run ${run.id} ${outcome.status}${outcome.error ? `: ${outcome.error}` : ""}`);
  } catch (err) {
    const reason = describeError(err);
    log(`run ${run.id} failed: ${reason}`);
    await whileDatabaseReturns(() => finishRun(db, run.id, { status: "failed", error: reason, result: null }), {
      log,
      what: `run ${run.id}: store the failure`,
    }).catch((e: unknown) =>
      log(`run ${run.id}: could not store the failure (${describeError(e)}); the watchdog ends it`),
    );
  } finally {
    watch.stop();
  }
  await continueGroup(db, run.id, deps.lifecycle);
}

/** A run the worker's shutdown stopped says so, rather than "canceled by request". */
export function stoppedByShutdown<T extends { status: string; error: string | null }>(
  deps: ProcessorDeps,
  outcome: T,
): T {
  return deps.shutdown?.aborted && outcome.status === "canceled" ? { ...outcome, error: SHUTDOWN_REASON } : outcome;
}

/**
 * While load runs: a heartbeat every 2 s (the watchdog fails runs and shards whose worker stops
 * writing it) and a check every 250 ms that aborts the engine once the run (or the shard) was
 * canceled or has ended. After a stall the engine asks `confirmAfterStall` before sending more:
 * the same check, at once (the watchdog may have ended the run while the worker was frozen).
 */
export function watchRun(
  db: Db,
  runId: string,
  beat: () => Promise<void>,
  options: { shutdown?: AbortSignal; shard?: number; log?: (line: string) => void } = {},
): { abort: AbortController; stop(): void; confirmAfterStall: (stall: Stall) => Promise<boolean> } {
  const { shutdown, shard = null } = options;
  const log = options.log ?? (() => undefined);
  const abort = new AbortController();
  const stopForShutdown = () => abort.abort();
  if (shutdown?.aborted) abort.abort();
  else shutdown?.addEventListener("abort", stopForShutdown, { once: true });
  const heartbeat = setInterval(() => beat().catch(() => {}), RUN_HEARTBEAT_MS);
  const what = `run ${runId}${shard === null ? "" : ` shard ${shard + 1}`}`;
  const cancelPoll = setInterval(() => {
    mayKeepSending(db, runId, shard)
      .then((goOn) => {
        if (!goOn && !abort.signal.aborted) abort.abort();
      })
      .catch(() => {});
  }, CANCEL_POLL_MS);
  const confirmAfterStall = async (stall: Stall): Promise<boolean> => {
    log(
      `${what}: the worker stalled for ${(stall.gapMs / 1000).toFixed(1)} s; ${stall.dropped} overdue requests dropped, checking the run still runs before sending more`,
    );
    // A pooled connection PostgreSQL closed while the worker was frozen may fail once: asked again.
    const { goOn, error } = await askUntilAnswered(() => mayKeepSending(db, runId, shard), {
      timeoutMs: STALL_CONFIRM_MS,
      signal: abort.signal,
    });
    if (goOn) return true;
    // Aborted meanwhile by the regular check (the run ended) or by the worker's shutdown.
    if (abort.signal.aborted) return false;
    log(
      error
        ? `${what}: could not confirm it is still running (${describeError(error)}); sending nothing more`
        : `${what}: no longer running; sending nothing more`,
    );
    abort.abort();
    return false;
  };
  return {
    abort,
    confirmAfterStall,
    stop() {
      clearInterval(heartbeat);
      clearInterval(cancelPoll);
      shutdown?.removeEventListener("abort", stopForShutdown);
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
  const { caps, installOrg } = await orgLoadPolicy(db, run.orgId);
  const settings = await getInstallSettings(db, deps.install ?? undefined);
  // The operator's whole allow-list serves the install's own organization; a tenant reaches only
  // the entries opened to tenants.
  const policy: SafetyPolicy = { allowList: allowListForOrg(settings, installOrg), resolve: deps.lookup };
  // Checked again right before load is sent, and the engine connects to the address checked
  // here: a name that resolved to an allowed address at registration may not do so now.
  const verdict = await resolveUrl(target.baseUrl, policy);
  if (!verdict.allowed) throw new Error(`refused to send load: ${verdict.reason}`);
  // The origin must still be verified (or the load a probe) when the run starts, and a verified
  // origin's load goes only to an address its token was served from.
  const trust = await assertLoadMayReach(db, run.orgId, target.baseUrl, parsed.data, "targetId", {
    shards: run.shardCount,
    runs: 1,
  });
  if (trust.kind === "verified" && !trust.addresses.includes(verdict.pin.address)) {
    throw new Error(
      `refused to send load: ${verdict.pin.hostname} now resolves to ${verdict.pin.address}, not an address the verification token was served from; verify the origin again`,
    );
  }
  // A probe runs a spec built from scratch (≤ 10 GETs of the root at a fixed slow pace, no
  // headers): nothing the tenant wrote in the scenario or the target reaches an unverified origin.
  const probe = trust.kind === "probe-only";
  const spec = probe ? probeSpec(parsed.data) : parsed.data;
  // Each shard gets its share of the rate ceiling, so shards together stay within the cap.
  const limits = {
    maxRate: probe ? PROBE_RATE_PER_S : caps.maxRate / Math.max(1, run.shardCount),
    maxConcurrency: caps.maxConnections,
    maxDurationS: caps.maxDurationS,
  };
  const resolved =
    options.lead && run.targetId && !probe
      ? await resolveMonitors(db, run.orgId, run.targetId, null, { secretKey: deps.secretKey })
      : [];
  // A tenant's monitors read only origins it verified; the others are left out of the run.
  const monitorConfigs: typeof resolved = [];
  for (const m of resolved) {
    if ("url" in m && !(await requestsMayReach(db, run.orgId, m.url, settings))) {
      deps.log(`run ${run.id}: monitor ${new URL(m.url).origin} skipped: not verified`);
      continue;
    }
    monitorConfigs.push(m);
  }
  const monitorOptions = { policy, allowProcess: installOrg };
  const headers = probe ? {} : runHeaders(target.headers, run.target, deps.secretKey);
  const applyUrl = probe ? null : (run.target?.configApplyUrl ?? null);
  if (options.lead && applyUrl && !(await requestsMayReach(db, run.orgId, applyUrl, settings))) {
    throw new Error(`refused to apply the instance config: ${new URL(applyUrl).origin} ${UNVERIFIED_REQUEST_MESSAGE}`);
  }
  // The lead sets the target to the run's config (its baseline for knobs the config leaves out)
  // and records what the target reports it runs with.
  const serverConfig = options.lead
    ? await applyServerConfig(
        applyUrl,
        knobsForRun(target.baselineKnobs, (run.configSnapshot as ConfigSnapshot | null)?.knobs),
        policy,
      )
    : null;
  return { target, spec, probe, limits, monitorConfigs, monitorOptions, headers, pin: verdict.pin, serverConfig };
}

export function toResultData(result: EngineResult): TRunResultData {
  const { startedAt: _s, endedAt: _e, canceled: _c, ...data } = result;
  return data;
}

export function describeError(err: unknown): string {
  if (err instanceof EngineConfigError) return `invalid ${err.field}: ${err.message.replace(`${err.field}: `, "")}`;
  const e = err as { message?: string; cause?: { code?: string; message?: string } };
  const cause = e.cause?.code ?? e.cause?.message;
  return [e.message ?? String(err), cause].filter(Boolean).join(" — ");
}
