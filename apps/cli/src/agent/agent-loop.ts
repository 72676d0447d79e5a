import { hostname } from "node:os";
import type { EngineProgress } from "@benchboard/core";
import type { EngineResult } from "@benchboard/loadgen";
import { z } from "zod";
import packageJson from "../../package.json";
import { ApiClient, ApiError } from "../client";
import { CliError, EXIT } from "../exit-codes";
import type { CliIo } from "../io";
import { ALLOW_ENV_VAR, type EnvAllowList, parseAllowEnv } from "./agent-env";
import { type AgentReport, assignmentName, runAssignment, type TAssignment, ZAssignment } from "./assignment";
import type { AgentOptions } from "./options";

const ZAnnounced = z.object({
  agent: z.object({ id: z.string(), name: z.string(), instanceId: z.string().optional() }),
});
const ZClaimed = z.object({ assignment: ZAssignment }).nullable();
const ZCancel = z.object({ cancel: z.boolean(), monitor: z.boolean().optional() });
const ZReady = z.object({ startAt: z.number().nullable(), cancel: z.boolean() });
const ZAny = z.unknown();

/** Engine results travel as JSON with their window in epoch milliseconds. */
function resultBody(result: EngineResult) {
  return { ...result, startedAt: result.startedAt.getTime(), endedAt: result.endedAt.getTime() };
}

/**
 * The run (or shard) ended on the server, which takes no more reports on it — or a newer agent
 * process took this one's name (410) —: stop, as on `cancel`.
 */
const isEnded = (err: unknown) => err instanceof ApiError && (err.status === 409 || err.status === 410);

/**
 * A newer process announced this agent's name (410), or the agent was removed (404 naming
 * `agentId`): this process stops instead of asking again and again.
 */
const isReplaced = (err: unknown) =>
  err instanceof ApiError && (err.status === 410 || (err.status === 404 && err.field === "agentId"));

/** Refusals that mean this agent may not go on: its token was revoked, or it was never valid. */
const isRevoked = (err: unknown) => err instanceof ApiError && err.status === 401;

/** Signals and exit of the process the agent runs in; tests pass their own. */
export interface AgentProcess {
  on(signal: "SIGTERM" | "SIGINT", listener: () => void): unknown;
  off(signal: "SIGTERM" | "SIGINT", listener: () => void): unknown;
}

export async function runAgent(options: AgentOptions, io: CliIo, proc: AgentProcess): Promise<void> {
  const url = (options.url ?? io.env.BENCHBOARD_URL ?? "")
    .trim()
    .replace(/\/+$/, "")
    .replace(/\/api\/v1$/, "");
  const token = (io.env.BENCHBOARD_AGENT_TOKEN ?? "").trim();
  if (!url) throw new CliError("no server: set BENCHBOARD_URL (or --url) to the Benchboard web app's address");
  if (!/^https?:\/\//.test(url)) throw new CliError(`BENCHBOARD_URL must be an http:// or https:// address: ${url}`);
  if (!token) {
    throw new CliError(
      "no agent token: set BENCHBOARD_AGENT_TOKEN; create one in Settings → Agents (it is shown once)",
    );
  }
  if (!options.label.length) throw new CliError("give at least one --label: runs are launched for agents by label");
  const name = (options.name ?? hostname()).trim();
  let allowEnv: EnvAllowList;
  try {
    allowEnv = parseAllowEnv(options.allowEnv ?? [], io.env[ALLOW_ENV_VAR]);
  } catch (err) {
    throw new CliError((err as Error).message);
  }
  const log = (line: string) => io.stderr(`[agent ${name}] ${line}\n`);
  // Every wait between retries is one line on stderr, so an unreachable server is never silence.
  const client = new ApiClient({
    url,
    token,
    env: io.env,
    log: (line) => log(line.replace(/^benchboard: /, "").trimEnd()),
  });
  const engines = options.engine ?? [];

  const announced = await client.request({
    method: "POST",
    path: "/agent/announce",
    body: {
      name,
      labels: options.label,
      capacity: options.capacity,
      version: packageJson.version,
      maxRate: options.maxRate ?? null,
      maxConnections: options.maxConnections ?? null,
      engines,
    },
    retry: true,
    schema: ZAnnounced,
    what: "announce",
  });
  const agentId = announced.body.agent.id;
  const instanceId = announced.body.agent.instanceId;
  const limits = [
    options.maxRate !== undefined ? `max ${options.maxRate} req/s` : null,
    options.maxConnections !== undefined ? `max ${options.maxConnections} connections` : null,
    engines.length ? `engines ${engines.join(", ")}` : null,
  ].filter(Boolean);
  const proxy = client.proxy();
  log(
    `connected to ${url}${proxy ? ` through the proxy ${proxy}` : ""} as ${name} (labels ${options.label.join(", ")}, capacity ${options.capacity}${limits.length ? `, ${limits.join(", ")}` : ""})`,
  );

  const stop = new AbortController();
  let revoked = false;
  let replacedBy: string | null = null;
  const onSignal = () => {
    if (stop.signal.aborted) return;
    log("stopping: in-flight runs stop their load and report what they measured");
    stop.abort();
  };
  proc.on("SIGTERM", onSignal);
  proc.on("SIGINT", onSignal);
  const stopRevoked = () => {
    if (revoked) return;
    revoked = true;
    log("the agent token was revoked (or is no longer valid): stopping");
    stop.abort();
  };

  const active = new Set<Promise<void>>();
  let taken = 0;
  try {
    while (!stop.signal.aborted && !(options.once && taken > 0)) {
      if (active.size >= options.capacity) {
        await Promise.race(active);
        continue;
      }
      let assignment: TAssignment | null = null;
      try {
        const claimed = await client.request({
          method: "POST",
          path: "/agent/claim",
          body: { agentId, instanceId, waitS: options.pollS, activeRuns: active.size },
          schema: ZClaimed,
          what: "claim",
          signal: stop.signal,
        });
        assignment = claimed.body?.assignment ?? null;
      } catch (err) {
        if (stop.signal.aborted) break;
        if (isRevoked(err)) {
          stopRevoked();
          break;
        }
        if (isReplaced(err)) {
          // Runs in flight go on to their end (or stop at their next report when refused).
          replacedBy = (err as Error).message;
          log(`${replacedBy}${active.size ? `; finishing ${active.size} run(s) in flight` : ""}`);
          break;
        }
        log(`${(err as Error).message}; trying again in 2 s`);
        await new Promise((r) => setTimeout(r, 2_000));
        continue;
      }
      if (!assignment) continue;
      taken++;
      log(`${assignmentName(assignment)} (#${assignment.number}) started`);
      const running = runAssignment(assignment, reporter(client, agentId, assignment, stopRevoked), {
        env: io.env,
        allowEnv,
        limits: { maxRate: options.maxRate, maxConnections: options.maxConnections, engines },
        realtime: options.realtime === true || io.env.BENCHBOARD_ENGINE_REALTIME === "1",
        stop: stop.signal,
        log,
      }).finally(() => active.delete(running));
      active.add(running);
    }
    await Promise.all(active);
  } finally {
    proc.off("SIGTERM", onSignal);
    proc.off("SIGINT", onSignal);
    // A replaced process says nothing: the name, and its row, belong to the newer one now.
    if (!revoked && !replacedBy) {
      await client
        .request({ method: "POST", path: "/agent/stop", body: { agentId, instanceId }, schema: ZAny, what: "stop" })
        .catch(() => {});
    }
  }
  if (revoked) throw new CliError("the agent token was revoked or is no longer valid", EXIT.badInput);
  if (replacedBy) throw new CliError(`agent ${name} stopped: ${replacedBy}`, EXIT.badInput);
}

/** The agent's reports on one assignment, through the CLI's one HTTP client. */
function reporter(client: ApiClient, agentId: string, a: TAssignment, onRevoked: () => void): AgentReport {
  const path = (what: string) => `/agent/runs/${encodeURIComponent(a.runId)}/${what}`;
  const base = { agentId, shard: a.shard };
  const guard = async <T>(call: Promise<T>): Promise<T> => {
    try {
      return await call;
    } catch (err) {
      if (isRevoked(err)) onRevoked();
      throw err;
    }
  };
  const orStop = async <T>(call: Promise<{ body: T }>, stop: T): Promise<T> => {
    try {
      return (await guard(call)).body;
    } catch (err) {
      if (isEnded(err)) return stop;
      throw err;
    }
  };
  return {
    async ready(serverConfig) {
      return orStop(
        client.request({
          method: "POST",
          path: path("ready"),
          body: { ...base, serverConfig },
          retry: true,
          schema: ZReady,
          what: "ready",
        }),
        { startAt: null, cancel: true },
      );
    },
    async heartbeat() {
      return orStop(
        client.request({ method: "POST", path: path("heartbeat"), body: base, schema: ZCancel, what: "heartbeat" }),
        { cancel: true },
      );
    },
    async progress(progress: EngineProgress, monitors) {
      return orStop(
        client.request({
          method: "POST",
          path: path("progress"),
          body: { ...base, progress, monitors },
          schema: ZCancel,
          what: "progress",
        }),
        { cancel: true },
      );
    },
    async checkpoint(result) {
      await guard(
        client.request({
          method: "POST",
          path: path("checkpoint"),
          body: { ...base, result: resultBody(result) },
          schema: ZAny,
          what: "checkpoint",
        }),
      );
    },
    async result(outcome) {
      const body =
        outcome.status === "failed"
          ? {
              ...base,
              status: "failed",
              error: outcome.error.slice(0, 2_000),
              result: outcome.result ? resultBody(outcome.result) : null,
            }
          : { ...base, status: outcome.status, stopping: outcome.stopping, result: resultBody(outcome.result) };
      await guard(
        client.request({ method: "POST", path: path("result"), body, retry: true, schema: ZAny, what: "result" }),
      );
    },
  };
}
