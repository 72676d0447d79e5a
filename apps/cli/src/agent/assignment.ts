import type { EngineProgress } from "@benchboard/core";
import { parseAllowList } from "@benchboard/core/address";
import {
  applyServerConfig,
  askUntilAnswered,
  checkpointWithMonitors,
  type EngineResult,
  type MonitorHandle,
  runScenario,
  type Stall,
  startMonitors,
} from "@benchboard/loadgen";
// Not from the package index: the web app bundles that, and a thread's entry is no module for it.
import { runScenarioInThread } from "@benchboard/loadgen/engine-thread";
import { resolveUrl, type SafetyPolicy } from "@benchboard/loadgen/target-safety";
import { sleep } from "@benchboard/loadgen/util";
import { z } from "zod";
import { type EnvAllowList, resolveHeaders } from "./agent-env";

/**
 * One run (or shard) as the claim endpoint hands it to an agent, and its execution with the same
 * engines and monitors the install's workers use. Reporting goes through `AgentReport`, so the
 * HTTP side stays in the command.
 */

export const ZAssignment = z.object({
  runId: z.string(),
  number: z.number(),
  shard: z.number().int().nullable(),
  shardCount: z.number().int(),
  lead: z.boolean(),
  target: z.object({
    baseUrl: z.string(),
    headers: z.array(z.object({ name: z.string(), value: z.string() })),
  }),
  spec: z.record(z.string(), z.unknown()),
  caps: z.object({ maxRate: z.number(), maxConnections: z.number(), maxDurationS: z.number() }),
  monitors: z.array(z.record(z.string(), z.unknown())),
  configHook: z.object({ url: z.string(), knobs: z.record(z.string(), z.unknown()).nullable() }).nullable(),
});
export type TAssignment = z.infer<typeof ZAssignment>;

/**
 * What the server answers to a report: whether to stop, and (for a shard) whether it watches the
 * run's monitors now — the lead does; another shard takes them over when the lead is lost.
 */
export interface ReportAnswer {
  cancel: boolean;
  monitor?: boolean;
}

/** What the agent tells the server while it runs one assignment. Each answer says whether to stop. */
export interface AgentReport {
  ready(serverConfig: Record<string, unknown> | null): Promise<{ startAt: number | null; cancel: boolean }>;
  heartbeat(): Promise<ReportAnswer>;
  progress(progress: EngineProgress, monitors: Record<string, number | null>): Promise<ReportAnswer>;
  checkpoint(result: EngineResult): Promise<void>;
  result(
    outcome:
      | { status: "failed"; error: string; result: EngineResult | null }
      | { status: "succeeded" | "canceled"; stopping: boolean; result: EngineResult },
  ): Promise<void>;
}

export interface AgentLimits {
  /** The agent's own ceilings (`--max-rate`, `--max-connections`): they only lower the organization's caps. */
  maxRate?: number;
  maxConnections?: number;
  /** Engines it runs (`--engine`); empty: every engine. */
  engines?: string[];
}

/**
 * Where an agent's requests may go: inside its own network, so private, loopback and shared
 * addresses are allowed — but cloud metadata, link-local and unspecified addresses are refused
 * always, here as on the install.
 */
export const AGENT_POLICY: SafetyPolicy = {
  allowList: parseAllowList([
    "10.0.0.0/8",
    "172.16.0.0/12",
    "192.168.0.0/16",
    "100.64.0.0/10",
    "127.0.0.0/8",
    "::1/128",
    "fc00::/7",
  ]).list,
};

const HEARTBEAT_MS = 1_000;
/** How long the server may take to confirm, after a stall, that a run still runs. */
const STALL_CONFIRM_MS = 10_000;
const PROGRESS_MS = 900;
const READY_POLL_MS = 200;
/** As on workers: a shard left waiting this long starts anyway and the run is flagged. */
const SHARD_START_WAIT_MS = 15_000;

const describe = (err: unknown) => {
  const e = err as { message?: string; cause?: { code?: string } };
  return [e.message ?? String(err), e.cause?.code].filter(Boolean).join(" — ");
};

/** "run <id>" or "run <id> shard 2/4": shard numbers as people read them, from 1. */
export function assignmentName(a: Pick<TAssignment, "runId" | "shard" | "shardCount">): string {
  return `run ${a.runId}${a.shard !== null ? ` shard ${a.shard + 1}/${a.shardCount}` : ""}`;
}

/**
 * Run one assignment to its end and report it. `stop` aborts when the agent itself stops
 * (SIGTERM, Ctrl-C, a revoked token): the load stops and the partial result is sent as `canceled`.
 */
export async function runAssignment(
  assignment: TAssignment,
  report: AgentReport,
  options: {
    env: Readonly<Record<string, string | undefined>>;
    /** The names `${env:NAME}` header values may read (`--allow-env`); never the agent's token. */
    allowEnv: EnvAllowList;
    limits: AgentLimits;
    /** Run open-model runs at real-time scheduling where permitted (`--realtime`; see `EngineContext.realtime`). */
    realtime?: boolean;
    stop: AbortSignal;
    log: (line: string) => void;
  },
): Promise<void> {
  const abort = new AbortController();
  const onStop = () => abort.abort();
  if (options.stop.aborted) abort.abort();
  options.stop.addEventListener("abort", onStop, { once: true });
  let lastReport = 0;
  // The lead watches the monitors from the start; another shard from when the server says the
  // lead was lost. Each checkpoint carries their series so far, so a lost agent loses none.
  const watching: { handle: MonitorHandle | null; loadStarted: boolean } = { handle: null, loadStarted: false };
  const watchMonitors = (configs: TAssignment["monitors"]) => {
    if (watching.handle || !configs.length) return;
    watching.handle = startMonitors(configs as never, { policy: AGENT_POLICY, allowProcess: true });
  };
  const obey = (answer: ReportAnswer) => {
    lastReport = Date.now();
    if (answer.cancel && !abort.signal.aborted) {
      options.log(`run ${assignment.runId}: canceled on the server; stopping the load`);
      abort.abort();
    }
    if (answer.monitor && watching.loadStarted && !watching.handle && !assignment.lead && !abort.signal.aborted) {
      options.log(`run ${assignment.runId}: the lead shard was lost; this shard watches the monitors from now`);
      // A local process is one of the lead's host: on this host the same pid or port is another.
      watchMonitors(assignment.monitors.filter((m) => m.kind !== "process"));
    }
  };
  // Cancel reaches the agent through these answers within about a second.
  const heartbeat = setInterval(() => {
    if (Date.now() - lastReport < HEARTBEAT_MS - 100) return;
    report.heartbeat().then(obey, () => {});
  }, HEARTBEAT_MS);
  let result: EngineResult | null = null;
  try {
    // The server hands out only runs within the limits the agent announced; this is the last defence.
    const engine = String(assignment.spec.engine ?? "");
    const engines = options.limits.engines ?? [];
    if (engines.length && !engines.includes(engine)) {
      throw new Error(`engine: this agent runs only ${engines.join(", ")} (--engine), not ${engine}`);
    }
    const headers = resolveHeaders(assignment.target.headers, options.env, options.allowEnv);
    const verdict = await resolveUrl(assignment.target.baseUrl, AGENT_POLICY);
    if (!verdict.allowed) throw new Error(`refused to send load: ${verdict.reason}`);
    const serverConfig = assignment.configHook
      ? await applyServerConfig(assignment.configHook.url, assignment.configHook.knobs, AGENT_POLICY)
      : null;

    // Every shard starts at one agreed moment once all are ready, as on the install's workers.
    const waitUntil = Date.now() + SHARD_START_WAIT_MS;
    let startedWithout = false;
    for (;;) {
      const ready = await report.ready(serverConfig);
      obey(ready);
      if (ready.startAt !== null) {
        await sleep(ready.startAt - Date.now(), abort.signal);
        break;
      }
      if (Date.now() >= waitUntil) {
        startedWithout = true;
        break;
      }
      await sleep(READY_POLL_MS, abort.signal);
      if (abort.signal.aborted) break;
    }

    if (assignment.lead) watchMonitors(assignment.monitors);
    watching.loadStarted = true;
    let lastProgress = 0;
    try {
      // On a thread of its own, as on workers: the agent's reporting never holds the engine's loop.
      const run = process.env.BENCHBOARD_ENGINE_THREAD === "0" ? runScenario : runScenarioInThread;
      result = await run(assignment.spec, {
        baseUrl: assignment.target.baseUrl,
        headers,
        pin: verdict.pin,
        realtime: options.realtime ?? false,
        signal: abort.signal,
        limits: {
          maxRate: Math.min(assignment.caps.maxRate, options.limits.maxRate ?? Number.POSITIVE_INFINITY),
          maxConcurrency: Math.min(
            assignment.caps.maxConnections,
            options.limits.maxConnections ?? Number.POSITIVE_INFINITY,
          ),
          maxDurationS: assignment.caps.maxDurationS,
          // Each chat user holds a connection: --max-connections bounds them too.
          ...(options.limits.maxConnections !== undefined ? { maxUsers: options.limits.maxConnections } : {}),
        },
        confirmAfterStall: (stall) => confirmStillRunning(assignment, report, obey, abort, stall, options.log),
        onProgress: (p) => {
          if (Date.now() - lastProgress < PROGRESS_MS) return;
          lastProgress = Date.now();
          report.progress(p, watching.handle?.latest() ?? {}).then(obey, () => {});
        },
        onCheckpoint: checkpointWithMonitors(
          () => watching.handle,
          (partial) => report.checkpoint(partial),
        ),
      });
    } finally {
      watching.loadStarted = false;
      const watched = await watching.handle?.stop();
      if (watched && result) {
        Object.assign(result.series, watched.series);
        Object.assign(result.metrics, watched.metrics);
        if (watched.errors.length) result.extra = { ...result.extra, monitorErrors: watched.errors };
      }
    }
    if (startedWithout) {
      result.valid = false;
      result.invalidReasons.push(
        "started before every shard was ready (fewer free agents than shards?): the shards' load did not overlap, so the combined rate understates it",
      );
    }
    const stopping = options.stop.aborted;
    await report.result({ status: result.canceled ? "canceled" : "succeeded", stopping, result });
    options.log(`${assignmentName(assignment)} ended`);
  } catch (err) {
    const reason = describe(err);
    options.log(`${assignmentName(assignment)}: ${reason}`);
    await report.result({ status: "failed", error: reason, result }).catch(() => {});
  } finally {
    clearInterval(heartbeat);
    options.stop.removeEventListener("abort", onStop);
  }
}

/**
 * After a stall (the agent frozen, its host too busy, a laptop asleep) the engine sends nothing
 * more until the server says the run still runs: a heartbeat answered `cancel: false`. The run
 * may have ended meanwhile (the watchdog ends a run whose agent went silent, and its reports are
 * then refused, which the reporter reads as `cancel`); an answer to stop, or none within
 * `STALL_CONFIRM_MS` (failed attempts are made again: see `askUntilAnswered`), stops the load.
 */
async function confirmStillRunning(
  assignment: TAssignment,
  report: AgentReport,
  obey: (answer: { cancel: boolean }) => void,
  abort: AbortController,
  stall: Stall,
  log: (line: string) => void,
): Promise<boolean> {
  const run = `run ${assignment.runId}`;
  log(
    `${run}: the agent stalled for ${(stall.gapMs / 1000).toFixed(1)} s; ${stall.dropped} overdue requests dropped, asking the server before sending more`,
  );
  const { goOn, error } = await askUntilAnswered(
    async () => {
      const answer = await report.heartbeat();
      if (answer.cancel) log(`${run}: no longer running on the server; sending nothing more`);
      obey(answer);
      return !answer.cancel;
    },
    { timeoutMs: STALL_CONFIRM_MS, signal: abort.signal },
  );
  // Stopped meanwhile by another report's answer (or the agent stopping), which said why.
  if (!goOn && error && !abort.signal.aborted) {
    log(`${run}: could not confirm it is still running (${describe(error)}); sending nothing more`);
    abort.abort();
  }
  return goOn;
}
