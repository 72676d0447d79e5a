import { combineProgress, LiveSamples, planShards, withTargetSignals } from "@benchboard/core";
import {
  checkpointShard,
  claimShard,
  finalizeShardedRun,
  finishShard,
  markShardReady,
  recordProgress,
  recordServerConfig,
  shardProgress,
  shardReadiness,
  storeShardProgress,
  touchShard,
  whileDatabaseReturns,
} from "@benchboard/db";
import type { TRunShardPayload } from "@benchboard/jobs";
import {
  checkpointWithMonitors,
  EngineConfigError,
  type EngineResult,
  runScenario,
  startMonitors,
} from "@benchboard/loadgen";
// Not from the package index: the web app bundles that, and a thread's entry is no module for it.
import { runScenarioInThread } from "@benchboard/loadgen/engine-thread";
import { sleep } from "@benchboard/loadgen/util";
import { describeError, type ProcessorDeps, prepareLoad, SHUTDOWN_REASON, watchRun } from "./run-execute";

/**
 * Execute one shard of a sharded run with its share of the load. Shard 0 also applies the
 * instance config, watches the target's monitors and reports the run's combined progress. The
 * worker that ends the last shard merges every shard's result (histograms add) into the run.
 */
export async function handleRunShard(deps: ProcessorDeps, payload: TRunShardPayload): Promise<void> {
  const { db, log } = deps;
  const { runId, index } = payload;
  const run = await whileDatabaseReturns(() => claimShard(db, runId, index, deps.workerId), {
    log: deps.log,
    what: `run ${runId} shard ${index + 1}: claim`,
  });
  if (!run) {
    log(`shard ${index + 1} of run ${runId} is no longer queued; skipped`);
    await finalizeShardedRun(db, runId, deps.lifecycle);
    return;
  }
  log(`run ${run.id} (#${run.number}) shard ${index + 1}/${run.shardCount} started`);
  const watch = watchRun(db, runId, () => touchShard(db, runId, index), { shutdown: deps.shutdown, shard: index, log });
  try {
    const lead = index === 0;
    const { target, spec, limits, monitorConfigs, monitorOptions, headers, pin, serverConfig } = await prepareLoad(
      deps,
      run,
      { lead },
    );
    if (lead) await recordServerConfig(db, runId, serverConfig);
    const shardSpec = planShards(spec, run.shardCount)[index];
    if (!shardSpec) throw new EngineConfigError("shards", `no shard ${index + 1} of ${run.shardCount}`);

    // Every shard waits until all are ready (the lead has applied the instance config by then),
    // then all start at one agreed moment, so their load overlaps and their series line up.
    const start = await awaitCommonStart(deps, runId, index, watch.abort.signal);
    if (start.waitingFor.length) {
      log(
        `run ${runId} shard ${index + 1} starts without shards ${start.waitingFor.map((i) => i + 1).join(", ")} (not ready in time)`,
      );
    }

    const monitors = lead ? startMonitors(monitorConfigs, monitorOptions) : null;
    const live = new LiveSamples();
    let lastWrite = 0;
    let result: EngineResult;
    try {
      result = await (deps.engineThread ? runScenarioInThread : runScenario)(shardSpec, {
        baseUrl: target.baseUrl,
        headers,
        pin,
        realtime: deps.engineRealtime ?? false,
        signal: watch.abort.signal,
        limits,
        confirmAfterStall: watch.confirmAfterStall,
        // Every 5 s the shard's result so far (the lead's with its monitors' series so far), kept
        // if its worker dies before the end.
        onCheckpoint: checkpointWithMonitors(
          () => monitors,
          (partial) => checkpointShard(db, runId, index, JSON.parse(JSON.stringify(partial))),
        ),
        onProgress: (p) => {
          storeShardProgress(db, runId, index, p).catch(() => {});
          if (!lead || Date.now() - lastWrite < 900) return;
          lastWrite = Date.now();
          shardProgress(db, runId)
            .then((all) =>
              recordProgress(db, runId, live.add(combineProgress(all.length ? all : [p]), monitors?.latest() ?? {})),
            )
            .catch(() => {});
        },
      });
    } finally {
      const watched = await monitors?.stop();
      if (watched && result!) {
        Object.assign(result.series, watched.series);
        Object.assign(result.metrics, watched.metrics);
      }
      // The target's own signals (its queue, its stages) name it first when it was the limit.
      if (result!) result = withTargetSignals(result);
    }
    if (start.waitingFor.length) {
      const waitS = Math.round(shardStartWaitMs(deps) / 1000);
      result.valid = false;
      result.invalidReasons.push(
        `started without shard${start.waitingFor.length > 1 ? "s" : ""} ${start.waitingFor.map((i) => i + 1).join(", ")}, ` +
          `not picked up within ${waitS} s (fewer free workers than shards?): the shards' load did not overlap, ` +
          "so the combined rate understates it",
      );
    }
    const stored = JSON.parse(JSON.stringify(result));
    await whileDatabaseReturns(
      () =>
        finishShard(db, runId, index, {
          status: result.canceled ? "canceled" : "succeeded",
          error: result.canceled && deps.shutdown?.aborted ? SHUTDOWN_REASON : null,
          result: stored,
        }),
      { log, what: `run ${runId} shard ${index + 1}: store the result` },
    );
    log(`run ${runId} shard ${index + 1} ended`);
  } catch (err) {
    const reason = describeError(err);
    log(`run ${runId} shard ${index + 1} failed: ${reason}`);
    await finishShard(db, runId, index, { status: "failed", error: reason });
  } finally {
    watch.stop();
  }
  await finalizeShardedRun(db, runId, deps.lifecycle);
}

/** How long a ready shard waits for the others before starting anyway. */
export const DEFAULT_SHARD_START_WAIT_MS = 15_000;
/** Margin after the last shard became ready, so every worker can see it before the start. */
const SHARD_START_MARGIN_MS = 300;
const shardStartWaitMs = (deps: ProcessorDeps) => deps.shardStartWaitMs ?? DEFAULT_SHARD_START_WAIT_MS;

/**
 * Mark this shard ready, wait until every other shard of the run still in play is ready too,
 * then sleep until the moment all of them compute alike: the last shard's ready time plus a
 * margin. After the wait limit the shard starts anyway; `waitingFor` lists who it left behind.
 */
export async function awaitCommonStart(
  deps: ProcessorDeps,
  runId: string,
  index: number,
  signal: AbortSignal,
): Promise<{ waitingFor: number[] }> {
  await markShardReady(deps.db, runId, index);
  const until = Date.now() + shardStartWaitMs(deps);
  for (;;) {
    if (signal.aborted) return { waitingFor: [] };
    const { waitingFor, lastReadyAt } = await shardReadiness(deps.db, runId);
    if (waitingFor.length === 0) {
      const startAt = (lastReadyAt?.getTime() ?? Date.now()) + SHARD_START_MARGIN_MS;
      await sleep(startAt - Date.now(), signal);
      return { waitingFor: [] };
    }
    if (Date.now() >= until) return { waitingFor };
    await sleep(100, signal);
  }
}
