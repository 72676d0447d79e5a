import { combineProgress, judge, planShards, type TRunResultData, ZScenarioSpec } from "@benchboard/core";
import { ImportError } from "@benchboard/core/importers";
import type { AgentBody, AgentBodyKind, AgentResultRead } from "@benchboard/core/importers/agent-body";
import { ParsePoolBusyError, readAgentBodyOffThread } from "@benchboard/core/importers/parse-pool";
import { checkResultWindow } from "@benchboard/core/result-input";
import {
  AGENT_CAPS,
  type AgentCaller,
  AgentReplacedError,
  agentMayTake,
  agentOfCaller,
  agentRunOfCaller,
  agentStoppedSince,
  agentWorkerId,
  announceAgent,
  appendLiveProgress,
  ConflictError,
  checkpointRun,
  checkpointShard,
  claimRun,
  claimShard,
  continueGroup,
  type Db,
  finalizeShardedRun,
  finishRun,
  finishShard,
  type LifecycleDeps,
  markShardReady,
  monitorShard,
  orgLoadPolicy,
  publicHeaders,
  publicMonitors,
  recordServerConfig,
  shardProgress,
  shardReadiness,
  stillRunning,
  stopAgent,
  storeShardProgress,
  touchAgent,
  touchRun,
  touchShard,
  verifyAgentToken,
} from "@benchboard/db";
import { type AgentJob, type AgentJobTaker, agentQueueName, createDispatch, queuesBeside } from "@benchboard/jobs";
import { knobsForRun, mergeShardResults } from "@benchboard/loadgen";
import type { z } from "zod";
import {
  ZAgentAnnounceInput,
  ZAgentClaimInput,
  ZAgentHeartbeatInput,
  ZAgentProgressInput,
  ZAgentReadyInput,
  ZAgentStopInput,
} from "./agent-schemas";
import type { RestDeps } from "./auth";
import {
  json,
  RestError,
  type RestRequest,
  type RestResponse,
  readBodyText,
  readJsonInput,
  restErrorResponse,
} from "./http";

/**
 * The routes `benchboard agent` calls, and only it: an agent token is refused everywhere else,
 * and every other token here. An agent sees only its own organization's agent runs, and reports
 * only on runs (and shards) it claimed itself; anything else is "not found".
 */

export interface AgentRestDeps extends RestDeps {
  /** Takes jobs from agent queues (one shared Redis connection); the claim endpoint needs it. */
  agentJobs?: AgentJobTaker | null;
}

/** Agents call about twice a second each while they run; several share a token. */
const AGENT_REQUESTS_PER_MINUTE = 1_200;
/**
 * Bodies without a result (announce, claim, heartbeat, ready, progress) are parsed on the
 * request thread: at this size a parse takes well under a millisecond.
 */
const SMALL_BODY_BYTES = 64_000;
/**
 * A checkpoint or result: 100 series of `MAX_AGENT_SERIES_POINTS` (3,900) numbers is at most
 * ~8 MB as JSON, with room for histograms. Read on the parse pool, never on the request thread.
 */
const RESULT_BODY_BYTES = 10_000_000;
/** A shard waits this long for the others, as on install workers. */
const SHARD_START_MARGIN_MS = 300;

const BEARER = /^Bearer\s+(\S+)\s*$/i;

const unauthorized = (message: string) =>
  new RestError(401, message, {}, { "www-authenticate": 'Bearer realm="benchboard-agent"' });
const REVOKED = "the agent token is invalid or revoked";

/** How an agent route counts its calls: a bucket per token, its allowance, and what it counts. */
export interface AgentRateLimit {
  bucket: string;
  perMinute: number;
  what: string;
}

const AGENT_ROUTES_LIMIT: AgentRateLimit = { bucket: "agent", perMinute: AGENT_REQUESTS_PER_MINUTE, what: "requests" };

/** The agent token's caller, within its allowance of calls (every agent route asks this). */
export async function authorizeAgent(
  req: RestRequest,
  deps: RestDeps,
  rate: AgentRateLimit = AGENT_ROUTES_LIMIT,
): Promise<AgentCaller> {
  const raw = BEARER.exec(req.headers.get("authorization") ?? "")?.[1];
  if (!raw) throw unauthorized("missing agent token: send the header Authorization: Bearer <agent token>");
  const caller = await verifyAgentToken(deps.db, raw);
  if (!caller) throw unauthorized(REVOKED);
  const limit = await deps.rateLimit.hit(`${rate.bucket}:${caller.tokenId}`, rate.perMinute, 60).catch(() => {
    throw new RestError(503, "the rate limiter (Redis) is unavailable; try again shortly", {}, { "retry-after": "5" });
  });
  if (!limit.allowed) {
    throw new RestError(
      429,
      `too many ${rate.what} with this agent token; try again in ${limit.retryAfterS} s`,
      {},
      { "retry-after": String(limit.retryAfterS) },
    );
  }
  return caller;
}

/**
 * 410 Gone for a process whose name a newer announce took (or whose agent was removed): it is
 * told why, and stops rather than trying again.
 */
function replaced(err: unknown): unknown {
  if (err instanceof AgentReplacedError) return new RestError(410, err.message, { field: err.field });
  return err;
}

function body<S extends z.ZodType>(req: RestRequest, schema: S, maxBytes = SMALL_BODY_BYTES): Promise<z.output<S>> {
  return readJsonInput(req, schema, maxBytes);
}

/**
 * A checkpoint or result body, read (parsed, checked, histograms re-encoded) on the parse pool
 * in the organization's share, as uploads are: megabytes of JSON are CPU work that would hold up
 * every other request on this thread.
 */
async function resultBody<K extends AgentBodyKind>(
  req: RestRequest,
  kind: K,
  orgId: string,
): Promise<Extract<AgentBody, { kind: K }>> {
  const text = await readBodyText(req, RESULT_BODY_BYTES);
  try {
    return (await readAgentBodyOffThread(kind, text, orgId)) as Extract<AgentBody, { kind: K }>;
  } catch (err) {
    if (err instanceof ParsePoolBusyError) {
      throw new RestError(503, err.message, {}, { "retry-after": String(Math.ceil(err.retryAfterS)) });
    }
    if (err instanceof ImportError) throw new RestError(400, err.message, err.field ? { field: err.field } : {});
    throw err;
  }
}

function lifecycle(deps: RestDeps): LifecycleDeps {
  return {
    dispatch: createDispatch(deps.queueFor ?? queuesBeside(deps.queue)),
    mergeShards: mergeShardResults,
    log: (line) => console.log(`[agents] ${line}`),
  };
}

// ---- POST /api/v1/agent/announce ----

export async function agentAnnounceHandler(req: RestRequest, deps: RestDeps): Promise<RestResponse> {
  try {
    const caller = await authorizeAgent(req, deps);
    const input = await body(req, ZAgentAnnounceInput);
    const agent = await announceAgent(deps.db, caller, input);
    return json(200, { agent });
  } catch (err) {
    return restErrorResponse(replaced(err), "POST /agent/announce");
  }
}

// ---- POST /api/v1/agent/stop ----

export async function agentStopHandler(req: RestRequest, deps: RestDeps): Promise<RestResponse> {
  try {
    const caller = await authorizeAgent(req, deps);
    const input = await body(req, ZAgentStopInput);
    const agent = await agentOfCaller(deps.db, caller, input.agentId, input.instanceId);
    await stopAgent(deps.db, agent.id);
    return json(200, { ok: true });
  } catch (err) {
    return restErrorResponse(replaced(err), "POST /agent/stop");
  }
}

// ---- POST /api/v1/agent/claim ----

/** Claims waiting now, by organization, in this server process (`AGENT_CAPS.claimsPerOrg`). */
const openClaims = new Map<string, number>();

/**
 * Long poll for work: the next job on a queue of this organization's agents for one of the
 * agent's labels, claimed in PostgreSQL for this agent, with everything needed to run it.
 * 204 when nothing came within `waitS`. The token is checked again before a run is handed
 * out: one revoked during the wait gets a 401, and the job goes back for another agent.
 */
export async function agentClaimHandler(req: RestRequest, deps: AgentRestDeps): Promise<RestResponse> {
  let heldBy: string | null = null;
  try {
    const caller = await authorizeAgent(req, deps);
    const input = await body(req, ZAgentClaimInput);
    const agent = await agentOfCaller(deps.db, caller, input.agentId, input.instanceId);
    const open = openClaims.get(caller.orgId) ?? 0;
    if (open >= AGENT_CAPS.claimsPerOrg) {
      throw new RestError(
        429,
        `an organization's agents wait for work in at most ${AGENT_CAPS.claimsPerOrg} claims at once; try again in 5 s`,
        {},
        { "retry-after": "5" },
      );
    }
    openClaims.set(caller.orgId, open + 1);
    heldBy = caller.orgId;
    const claimedAt = new Date();
    await touchAgent(deps.db, agent.id, input.activeRuns);
    if (!deps.agentJobs)
      throw new RestError(503, "this server does not hand out agent runs", {}, { "retry-after": "5" });
    const jobs = deps.agentJobs;
    const queues = agent.labels.map((label) => agentQueueName(agent.orgId, label));
    const until = Date.now() + input.waitS * 1000;
    // An agent that announced limits passes over runs beyond them, leaving them to agents that fit.
    const limited = agent.maxRate !== null || agent.maxConnections !== null || agent.engines.length > 0;
    const accept = limited
      ? (candidate: AgentJob) =>
          agentMayTake(
            deps.db,
            agent,
            candidate.data.runId,
            candidate.name === "run.shard" ? candidate.data.index : null,
          )
      : undefined;
    for (;;) {
      let job: AgentJob | null;
      try {
        job = await jobs.take(queues, Math.max(0, until - Date.now()), req.signal, accept);
      } catch {
        throw new RestError(503, "the job queue (Redis) is unavailable; try again shortly", {}, { "retry-after": "5" });
      }
      if (!job) return json(204, null);
      const taken = job;
      const giveBack = () =>
        jobs.giveBack(taken).catch((err) => {
          // The run stays queued in PostgreSQL; the watchdog dispatches a waiting run again.
          console.error(
            `[agents] could not give back ${taken.id}: ${err instanceof Error ? err.message : String(err)}`,
          );
        });
      if (!(await stillAuthorized(req, deps, caller))) {
        await giveBack();
        throw unauthorized(REVOKED);
      }
      // The agent went away while its claim waited (it stopped, or dropped the request): the run
      // goes to the next agent instead of one that will never run it.
      if (req.signal?.aborted || (await agentStoppedSince(deps.db, agent.id, claimedAt))) {
        await giveBack();
        return json(204, null);
      }
      // A newer process took the name while this claim waited: the run goes to that one.
      try {
        await agentOfCaller(deps.db, caller, agent.id, input.instanceId);
      } catch (err) {
        await giveBack();
        throw err;
      }
      const assignment = await claimJob(deps, agent, job);
      if (assignment) {
        await touchAgent(deps.db, agent.id, input.activeRuns + 1);
        return json(200, { assignment });
      }
      if (Date.now() >= until) return json(204, null);
    }
  } catch (err) {
    return restErrorResponse(replaced(err), "POST /agent/claim");
  } finally {
    if (heldBy) {
      const left = (openClaims.get(heldBy) ?? 1) - 1;
      if (left > 0) openClaims.set(heldBy, left);
      else openClaims.delete(heldBy);
    }
  }
}

/** The token is still good (not revoked, expired, or its creator gone) and still this organization's. */
async function stillAuthorized(req: RestRequest, deps: RestDeps, caller: AgentCaller): Promise<boolean> {
  const raw = BEARER.exec(req.headers.get("authorization") ?? "")?.[1];
  const again = raw ? await verifyAgentToken(deps.db, raw) : null;
  return again?.tokenId === caller.tokenId && again.orgId === caller.orgId;
}

type Agent = Awaited<ReturnType<typeof agentOfCaller>>;

interface TargetSnapshot {
  baseUrl?: string;
  headers?: unknown;
  configApplyUrl?: string | null;
  baselineKnobs?: Record<string, unknown> | null;
}

/** Claim the job's run (or shard) for the agent; null when it is no longer to be run. */
async function claimJob(deps: RestDeps, agent: Agent, job: AgentJob) {
  const { db } = deps;
  const workerId = agentWorkerId(agent);
  const scope = { agent: { orgId: agent.orgId, labels: agent.labels } };
  const shard = job.name === "run.shard" ? job.data.index : null;
  const run =
    shard === null
      ? await claimRun(db, job.data.runId, workerId, scope)
      : await claimShard(db, job.data.runId, shard, workerId, scope);
  if (!run) {
    // Canceled while queued (or another agent has it): the group goes on as on a worker.
    if (shard === null) await continueGroup(db, job.data.runId, lifecycle(deps));
    else await finalizeShardedRun(db, job.data.runId, lifecycle(deps));
    return null;
  }
  try {
    return await assignmentFor(db, run, shard);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    await endAgentWork(deps, run.id, shard, { status: "failed", error: reason, result: null });
    return null;
  }
}

type ClaimedRun = NonNullable<Awaited<ReturnType<typeof claimRun>>>;

/**
 * Everything the agent needs to run: the target's address and headers, the scenario (this
 * shard's share), the organization's caps, the monitors (the lead watches them; every shard
 * has them, to take them over if the lead is lost) and, for the lead, the config hook. Stored
 * secrets never leave the install: a secret header must be written as `${env:NAME}` for an
 * agent run, and the agent reads it from its own environment.
 */
async function assignmentFor(db: Db, run: ClaimedRun, shard: number | null) {
  const target = run.targetSnapshot as TargetSnapshot | null;
  if (!target?.baseUrl) throw new Error("invalid target: the run has no target");
  const parsed = ZScenarioSpec.safeParse((run.scenarioSnapshot as { spec?: unknown } | null)?.spec);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`invalid scenario.${issue?.path.join(".")}: ${issue?.message ?? "invalid"}`);
  }
  const spec = shard === null ? parsed.data : planShards(parsed.data, run.shardCount)[shard];
  if (!spec) throw new Error(`invalid shards: no shard ${(shard ?? 0) + 1} of ${run.shardCount}`);
  const headers: { name: string; value: string }[] = [];
  for (const h of publicHeaders(target.headers)) {
    if ("secret" in h) {
      throw new Error(
        `header ${h.name} is stored as a secret, which never leaves the install; for agent runs write its value as \${env:NAME}, set NAME on the agent and allow it there with --allow-env NAME`,
      );
    }
    headers.push({ name: h.name, value: h.value });
  }
  const lead = shard === null || shard === 0;
  const { caps } = await orgLoadPolicy(db, run.orgId);
  const monitors = run.target ? publicMonitors(run.target.monitors) : [];
  const configApplyUrl = lead ? (run.target?.configApplyUrl ?? null) : null;
  const knobs = configApplyUrl
    ? knobsForRun(target.baselineKnobs, (run.configSnapshot as { knobs?: Record<string, unknown> } | null)?.knobs)
    : null;
  return {
    runId: run.id,
    number: run.number,
    shard,
    shardCount: run.shardCount,
    lead,
    target: { baseUrl: target.baseUrl, headers },
    spec,
    caps: { maxRate: caps.maxRate, maxConnections: caps.maxConnections, maxDurationS: caps.maxDurationS },
    monitors,
    configHook: configApplyUrl ? { url: configApplyUrl, knobs } : null,
  };
}

// ---- POST /api/v1/agent/runs/{id}/heartbeat ----

/** The agent is alive and running it; answers whether to stop (canceled from the UI or API). */
export async function agentHeartbeatHandler(req: RestRequest, deps: RestDeps, runId: string): Promise<RestResponse> {
  try {
    const caller = await authorizeAgent(req, deps);
    const input = await body(req, ZAgentHeartbeatInput);
    const agent = await agentOfCaller(deps.db, caller, input.agentId);
    const run = await agentRunOfCaller(deps.db, agent, runId, input.shard);
    assertLive(run, input.shard);
    if (input.shard === null) await touchRun(deps.db, runId);
    else await touchShard(deps.db, runId, input.shard);
    await touchAgent(deps.db, agent.id);
    return json(200, { cancel: shouldStop(run), monitor: await watchesMonitors(deps.db, runId, input.shard) });
  } catch (err) {
    return restErrorResponse(replaced(err), "POST /agent/runs/{id}/heartbeat");
  }
}

type ReportedRun = { id: string; status: string; cancelRequested: boolean; shardStatus: string | null };

/**
 * Reports (ready, heartbeat, progress, checkpoints) are taken only while the run — and the
 * shard — is live: an ended run's record is final, and the agent learns from the 409 to stop.
 */
function assertLive(run: ReportedRun, shard: number | null): void {
  if (run.status !== "running") {
    throw new ConflictError("id", `run ${run.id} has ended (${run.status}); it takes no more reports: stop its load`);
  }
  if (shard !== null && run.shardStatus !== "running") {
    throw new ConflictError(
      "shard",
      `shard ${shard + 1} of run ${run.id} has ended (${run.shardStatus}); it takes no more reports: stop its load`,
    );
  }
}

/**
 * Whether this shard watches the run's monitors now: a whole run and the lead always do; another
 * shard does once the lead was lost (see `monitorShard`), and starts them on this answer.
 */
async function watchesMonitors(db: Db, runId: string, shard: number | null): Promise<boolean> {
  if (shard === null || shard === 0) return true;
  return (await monitorShard(db, runId)) === shard;
}

function shouldStop(run: { status: string; cancelRequested: boolean; shardStatus: string | null }): boolean {
  // A run the watchdog ended, or one canceled, must stop sending load.
  return run.cancelRequested || run.status !== "running" || (run.shardStatus !== null && run.shardStatus !== "running");
}

// ---- POST /api/v1/agent/runs/{id}/ready ----

/**
 * A shard (or a run) has prepared its load: records the config the hook reported, marks the
 * shard ready, and answers when to start — every shard at one agreed moment, as on workers.
 */
export async function agentReadyHandler(req: RestRequest, deps: RestDeps, runId: string): Promise<RestResponse> {
  try {
    const caller = await authorizeAgent(req, deps);
    const input = await body(req, ZAgentReadyInput);
    const agent = await agentOfCaller(deps.db, caller, input.agentId);
    const run = await agentRunOfCaller(deps.db, agent, runId, input.shard);
    assertLive(run, input.shard);
    if (input.serverConfig && (input.shard === null || input.shard === 0)) {
      await recordServerConfig(deps.db, runId, input.serverConfig);
    }
    if (input.shard === null) return json(200, { startAt: Date.now(), waitingFor: [], cancel: shouldStop(run) });
    await markShardReady(deps.db, runId, input.shard);
    const { waitingFor, lastReadyAt } = await shardReadiness(deps.db, runId);
    const startAt = waitingFor.length ? null : (lastReadyAt?.getTime() ?? Date.now()) + SHARD_START_MARGIN_MS;
    return json(200, { startAt, waitingFor, cancel: shouldStop(run) });
  } catch (err) {
    return restErrorResponse(replaced(err), "POST /agent/runs/{id}/ready");
  }
}

// ---- POST /api/v1/agent/runs/{id}/progress ----

/**
 * One second of progress; the shard watching the monitors (the lead, or the one that took them
 * over) also carries their latest readings and writes the run's combined live progress.
 */
export async function agentProgressHandler(req: RestRequest, deps: RestDeps, runId: string): Promise<RestResponse> {
  try {
    const caller = await authorizeAgent(req, deps);
    const input = await body(req, ZAgentProgressInput);
    const agent = await agentOfCaller(deps.db, caller, input.agentId);
    const run = await agentRunOfCaller(deps.db, agent, runId, input.shard);
    assertLive(run, input.shard);
    const monitor = await watchesMonitors(deps.db, runId, input.shard);
    if (input.shard === null) {
      await appendLiveProgress(deps.db, runId, input.progress, input.monitors);
    } else {
      await storeShardProgress(deps.db, runId, input.shard, input.progress);
      await touchShard(deps.db, runId, input.shard);
      if (monitor) {
        const all = await shardProgress(deps.db, runId);
        await appendLiveProgress(deps.db, runId, combineProgress(all.length ? all : [input.progress]), input.monitors);
      }
    }
    return json(200, { cancel: shouldStop(run), monitor });
  } catch (err) {
    return restErrorResponse(replaced(err), "POST /agent/runs/{id}/progress");
  }
}

// ---- POST /api/v1/agent/runs/{id}/checkpoint ----

/**
 * The result so far, every few seconds, with the monitors' series sampled so far when this shard
 * watches them: kept if the agent dies before the end.
 */
export async function agentCheckpointHandler(req: RestRequest, deps: RestDeps, runId: string): Promise<RestResponse> {
  try {
    const caller = await authorizeAgent(req, deps);
    const { input, result } = await resultBody(req, "checkpoint", caller.orgId);
    const agent = await agentOfCaller(deps.db, caller, input.agentId);
    const run = await agentRunOfCaller(deps.db, agent, runId, input.shard);
    assertLive(run, input.shard);
    const canonical = withinRun(result, run.startedAt);
    if (input.shard === null) await checkpointRun(deps.db, runId, canonical);
    else await checkpointShard(deps.db, runId, input.shard, storedShardResult(result));
    return json(200, { cancel: shouldStop(run) });
  } catch (err) {
    return restErrorResponse(replaced(err), "POST /agent/runs/{id}/checkpoint");
  }
}

// ---- POST /api/v1/agent/runs/{id}/result ----

/**
 * The run's (or shard's) end: the result is bounded and re-encoded like an upload, judged as a
 * worker's would be, and stored; a sharded run merges when its last shard ended; the group goes on.
 */
export async function agentResultHandler(req: RestRequest, deps: RestDeps, runId: string): Promise<RestResponse> {
  try {
    const caller = await authorizeAgent(req, deps);
    const { input, result } = await resultBody(req, "result", caller.orgId);
    const agent = await agentOfCaller(deps.db, caller, input.agentId);
    const run = await agentRunOfCaller(deps.db, agent, runId, input.shard);
    const canonical = result ? withinRun(result, run.startedAt) : null;
    const stoppedReason = `agent ${agent.name} shutting down; partial results kept`;
    const canceled = input.status === "canceled" || result?.canceled === true;
    let outcome: { status: "succeeded" | "failed" | "canceled"; error: string | null };
    if (input.status === "failed") outcome = { status: "failed", error: input.error ?? "the agent could not run it" };
    else if (input.shard !== null) outcome = { status: canceled ? "canceled" : "succeeded", error: null };
    else if (!canonical) outcome = { status: "canceled", error: "canceled by request" };
    // A whole run is judged as a worker judges it; shards are judged once merged.
    else outcome = judge({ ...canonical, canceled });
    if (outcome.status === "canceled" && input.stopping) outcome = { status: "canceled", error: stoppedReason };
    await touchAgent(deps.db, agent.id);
    const stored = result ? storedShardResult(result) : null;
    const ended = await endAgentWork(deps, runId, input.shard, { ...outcome, result: canonical, shardResult: stored });
    return json(200, { ended });
  } catch (err) {
    return restErrorResponse(replaced(err), "POST /agent/runs/{id}/result");
  }
}

/**
 * The result read on the pool (bounded inflate, re-encoded histograms: the agent is as untrusted
 * as an uploaded file), its series checked against the run's start, known only now.
 */
function withinRun(result: AgentResultRead, startedAt: Date | null): TRunResultData {
  try {
    checkResultWindow("agent", result.data, { startedAt, endedAt: null });
  } catch (err) {
    if (err instanceof ImportError) throw new RestError(400, err.message, { field: err.field });
    throw err;
  }
  return result.data;
}

/**
 * A shard's result as stored: the canonical result with the engine's window and cancel flag.
 * The result came as JSON and was re-encoded as plain data, so it needs no copy through JSON
 * text (which on a shard's megabytes would cost the request thread what the pool spared it).
 */
function storedShardResult(result: AgentResultRead): object {
  return {
    ...result.data,
    startedAt: new Date(result.startedAt).toISOString(),
    endedAt: new Date(result.endedAt).toISOString(),
    canceled: result.canceled,
  };
}

/** End a run (only while it is live) or a shard, then continue the group or merge the shards. */
async function endAgentWork(
  deps: RestDeps,
  runId: string,
  shard: number | null,
  outcome: {
    status: "succeeded" | "failed" | "canceled";
    error: string | null;
    result: TRunResultData | null;
    shardResult?: object | null;
  },
): Promise<boolean> {
  const { db } = deps;
  if (shard === null) {
    if (!(await stillRunning(db, runId))) return false;
    await finishRun(db, runId, { status: outcome.status, error: outcome.error, result: outcome.result });
    await continueGroup(db, runId, lifecycle(deps));
    return true;
  }
  if (!(await stillRunning(db, runId, shard))) return false;
  await finishShard(db, runId, shard, {
    status: outcome.status,
    error: outcome.error,
    ...(outcome.shardResult ? { result: outcome.shardResult } : {}),
  });
  await finalizeShardedRun(db, runId, lifecycle(deps));
  return true;
}
