import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { createCaller } from "@benchboard/api";
import {
  AGENT_CAPS,
  createAgentToken,
  createApiToken,
  finishRun,
  getRunView,
  type LifecycleDeps,
  revokeApiToken,
  startRunWatchdog,
} from "@benchboard/db";
import type { TestDatabase } from "@benchboard/db/testing";
import { agentQueueName, createDispatch, DEFAULT_REDIS_URL } from "@benchboard/jobs";
import { mergeShardResults } from "@benchboard/loadgen";
import { startPrometheusApi } from "@benchboard/loadgen/test/prometheus-api";
import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentStack, startAgentStack } from "../test/agent-stack";
import { waitFor as waitForIn } from "../test/wait";
import { startRunner } from "./worker";

// Load agents end to end with real parts: a tenant organization launches through tRPC and REST,
// runs go on per-organization agent queues in Redis, `benchboard agent` processes (the CLI, run
// as a user runs it) claim them over HTTP from the REST handlers, run the workers' engines and
// monitors against servers on 127.0.0.1, and report; results land in PostgreSQL.

const CLI = fileURLToPath(new URL("../../../apps/cli/bin/benchboard.js", import.meta.url));
const redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
const prefix = `bbagents-${randomBytes(4).toString("hex")}`;
const STALE_MS = 4_000;

let stack: AgentStack | undefined;
let t: TestDatabase;
let queue: Queue;
let queueFor: AgentStack["queueFor"];
let redis: Redis;
let rest: AgentStack["rest"];
let stopWatchdog: () => void;
const logs: string[] = [];
const agents: ChildProcess[] = [];

/** The target: 50 ms answers, a Prometheus endpoint, and a log of when each request came. */
const target = {
  server: null as http.Server | null,
  url: "",
  requests: [] as number[],
  metricsHits: 0,
  authorization: new Set<string>(),
};
/** A server only agent runs may reach: anything that arrives from the install is a breach. */
const internal = { server: null as http.Server | null, url: "", hits: 0 };

async function listen(handler: http.RequestListener) {
  const server = http.createServer(handler);
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

beforeAll(async () => {
  const made = await listen((req, res) => {
    if (req.url === "/metrics") {
      target.metricsHits++;
      res.setHeader("content-type", "text/plain; version=0.0.4");
      res.end(
        `# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes ${100_000_000 + target.metricsHits}\n`,
      );
      return;
    }
    target.requests.push(Date.now());
    if (req.headers.authorization) target.authorization.add(req.headers.authorization);
    setTimeout(() => res.end("ok"), 50);
  });
  Object.assign(target, made);
  const inner = await listen((_req, res) => {
    internal.hits++;
    res.end("internal");
  });
  Object.assign(internal, inner);

  stack = await startAgentStack(redisUrl, prefix);
  ({ t, queue, queueFor, redis, rest } = stack);
  // The web app's watchdog: ends runs whose agent stopped heartbeating, and keeps groups going.
  const lifecycle: LifecycleDeps = { dispatch: createDispatch(queueFor), mergeShards: mergeShardResults };
  stopWatchdog = startRunWatchdog(t.db, { ...lifecycle, staleAfterMs: STALE_MS, everyMs: 500 });
});

afterAll(async () => {
  for (const a of agents) if (a.exitCode === null) a.kill("SIGKILL");
  stopWatchdog?.();
  await stack?.close();
  target.server?.close();
  internal.server?.close();
});

const context = () => logs.join("");
const waitFor = <T>(check: () => Promise<T | false | null | undefined>, timeoutMs: number, what: string) =>
  waitForIn(check, timeoutMs, what, context);

/** A tenant: an organization that is not the install's, with no verified origin. */
async function tenant(label: string) {
  const org = await t.db.organization.create({
    data: { name: `Tenant ${label}`, slug: `tenant-${label}-${randomBytes(3).toString("hex")}` },
  });
  const caller = createCaller({
    db: t.db,
    queue,
    queueFor,
    orgId: org.id,
    userId: null,
    role: "owner",
    secretKey: randomBytes(32),
  });
  const { token } = await createAgentToken(t.db, org.id, { name: `agents ${label}`, createdById: null });
  const project = await caller.project.create({ name: `p-${label}` });
  return { org, caller, agentToken: token, project };
}

type Tenant = Awaited<ReturnType<typeof tenant>>;

/** The agent's host environment: the key its operator lets targets use, and secrets it does not. */
const AGENT_HOST_ENV = { GATEWAY_KEY: "from-the-agent-env", CLOUD_SECRET: "cloud-credential-of-the-host" };

function startAgent(
  token: string,
  name: string,
  extra: string[] = ["--allow-env", "GATEWAY_KEY"],
  env: Record<string, string> = {},
) {
  const child = spawn(
    process.execPath,
    [CLI, "agent", "--url", rest.url, "--name", name, "--label", "lab", "--poll-s", "2", ...extra],
    {
      env: { PATH: process.env.PATH ?? "", BENCHBOARD_AGENT_TOKEN: token, ...AGENT_HOST_ENV, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  child.stdout?.on("data", (d) => logs.push(`[${name}] ${d}`));
  child.stderr?.on("data", (d) => logs.push(`[${name}] ${d}`));
  agents.push(child);
  return child;
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once("exit", (code) => resolve(code));
  });

async function agentOnline(orgId: string, name: string) {
  await waitFor(
    async () => (await t.db.agent.findFirst({ where: { orgId, name, stoppedAt: null } })) !== null,
    30_000,
    `agent ${name} to announce`,
  );
}

async function runEnd(caller: Tenant["caller"], id: string, timeoutMs = 60_000) {
  return waitFor(
    async () => {
      const run = await caller.run.byId({ id });
      return ["succeeded", "failed", "canceled"].includes(run.status) ? run : null;
    },
    timeoutMs,
    `run ${id} to end`,
  );
}

async function agentTarget(tn: Tenant, name: string, headers: { name: string; value: string }[] = []) {
  return tn.caller.target.create({
    projectId: tn.project.id,
    name,
    kind: "http",
    baseUrl: target.url,
    agentLabel: "lab",
    headers,
    monitors: [{ config: { kind: "prometheus", url: `${target.url}/metrics` } }],
  } as never);
}

describe("load agents", () => {
  let a: Tenant;
  let one: ChildProcess;
  let two: ChildProcess;

  beforeAll(async () => {
    a = await tenant("a");
    one = startAgent(a.agentToken, "lab-1");
    two = startAgent(a.agentToken, "lab-2");
    await agentOnline(a.org.id, "lab-1");
    await agentOnline(a.org.id, "lab-2");
  });

  it("run a 2-shard run of an unverified tenant on two agents; counts merge exactly; the agent samples the target's memory", async () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the placeholder the agent resolves from its environment
    const tgt = await agentTarget(a, "gateway", [{ name: "authorization", value: "${env:GATEWAY_KEY}" }]);
    const scenario = await a.caller.scenario.create({
      projectId: a.project.id,
      name: "open",
      spec: { engine: "http-open", rate: 100, durationS: 3, request: { path: "/v1/x" } } as never,
    });
    const before = target.requests.length;
    const metricsBefore = target.metricsHits;
    const launched = await a.caller.run.launch({ targetId: tgt.id, scenarioId: scenario.id, shards: 2 });
    const run = await runEnd(a.caller, launched.id);
    expect(run.status, run.error ?? "").toBe("succeeded");
    const shards = await t.db.runShard.findMany({ where: { runId: run.id }, orderBy: { index: "asc" } });
    expect(shards.map((s) => s.status)).toEqual(["succeeded", "succeeded"]);
    // Each shard on its own agent.
    expect(new Set(shards.map((s) => s.workerId)).size).toBe(2);
    expect(shards.every((s) => s.workerId?.startsWith("agent:lab-"))).toBe(true);
    // The run page names the organization's own agents; a shared view numbers them.
    const view = await a.caller.run.view({ id: run.id });
    expect(view.shards?.items.map((s) => s.worker).sort()).toEqual(["lab-1", "lab-2"]);
    const shared = await getRunView(t.db, a.org.id, run.id);
    expect(shared?.shards?.items.map((s) => s.worker).sort()).toEqual(["agent 1", "agent 2"]);
    const shardRequests = shards.map((s) => (s.result as { metrics: { requests: number } }).metrics.requests);
    const stored = await t.db.runResult.findUniqueOrThrow({ where: { runId: run.id } });
    const metrics = stored.metrics as Record<string, number>;
    expect(metrics.requests).toBe(shardRequests[0]! + shardRequests[1]!);
    // The target saw them all (and the engines' connection warm-up before measuring).
    expect(target.requests.length - before).toBeGreaterThanOrEqual(metrics.requests!);
    expect(metrics.requests).toBeGreaterThanOrEqual(250);
    // The memory series was sampled by the agent, from inside "the tenant's network".
    const mem = await t.db.series.findFirst({ where: { runId: run.id, metric: "mem_bytes" } });
    expect((mem?.values as (number | null)[] | undefined)?.filter((v) => v !== null).length).toBeGreaterThanOrEqual(2);
    expect(target.metricsHits).toBeGreaterThan(metricsBefore);
    // The secret came from the agent's environment; the install never had it.
    expect([...target.authorization]).toEqual(["from-the-agent-env"]);
    expect(JSON.stringify(await t.db.target.findUniqueOrThrow({ where: { id: tgt.id } }))).not.toContain(
      "from-the-agent-env",
    );
  }, 90_000);

  it("a tenant's unverified origin is refused on install workers but not on agents", async () => {
    const plain = await a.caller.target.create({
      projectId: a.project.id,
      name: "plain",
      kind: "http",
      baseUrl: target.url,
    } as never);
    const scenario = await a.caller.scenario.create({
      projectId: a.project.id,
      name: "big",
      spec: { engine: "http-open", rate: 50, durationS: 1 } as never,
    });
    await expect(a.caller.run.launch({ targetId: plain.id, scenarioId: scenario.id })).rejects.toThrow(/not verified/);
    const onAgents = await a.caller.run.launch({ targetId: plain.id, scenarioId: scenario.id, agentLabel: "lab" });
    expect((await runEnd(a.caller, onAgents.id)).status).toBe("succeeded");
    // An agent-only target cannot be sent to install workers at all.
    const only = await agentTarget(a, "only");
    await expect(
      a.caller.run.launch({ targetId: only.id, scenarioId: scenario.id, workerLabel: "lab" }),
    ).rejects.toThrow(/reached only by agents labelled lab/);
  }, 60_000);

  it("cancel from the UI stops the agent's load within 2 s and keeps the partial result", async () => {
    const tgt = await agentTarget(a, "cancel-me");
    const scenario = await a.caller.scenario.create({
      projectId: a.project.id,
      name: "long",
      spec: { engine: "http-open", rate: 100, durationS: 30 } as never,
    });
    const launched = await a.caller.run.launch({ targetId: tgt.id, scenarioId: scenario.id });
    await waitFor(async () => (await a.caller.run.byId({ id: launched.id })).status === "running", 20_000, "running");
    const started = target.requests.length;
    await waitFor(async () => target.requests.length - started > 150, 20_000, "load to flow");
    const canceledAt = Date.now();
    await a.caller.run.cancel({ id: launched.id });
    const run = await runEnd(a.caller, launched.id);
    expect(run.status).toBe("canceled");
    await new Promise((r) => setTimeout(r, 1_000));
    const last = target.requests.at(-1)!;
    expect(last - canceledAt).toBeLessThan(2_000);
    // What was measured after the engine's 1 s warm-up, until the cancel, is kept.
    const stored = await t.db.runResult.findUniqueOrThrow({ where: { runId: run.id } });
    const measured = (stored.metrics as Record<string, number>).requests!;
    expect(measured).toBeGreaterThan(20);
    expect(measured).toBeLessThanOrEqual(target.requests.length - started);
  }, 60_000);

  it("a SIGKILLed agent's run ends failed with its last checkpoint, and the group goes on on the other agent", async () => {
    const tgt = await agentTarget(a, "kill");
    const scenario = await a.caller.scenario.create({
      projectId: a.project.id,
      name: "kill",
      spec: { engine: "http-open", rate: 50, durationS: 12 } as never,
    });
    const launched = await a.caller.run.launch({ targetId: tgt.id, scenarioId: scenario.id, repetitions: 2 });
    const [firstId, secondId] = launched.groupRunIds;
    const first = await waitFor(
      async () => {
        const r = await t.db.run.findUniqueOrThrow({ where: { id: firstId! } });
        return r.status === "running" && r.workerIds.length ? r : null;
      },
      20_000,
      "first run to start",
    );
    const victim = first.workerIds[0]!.startsWith("agent:lab-1:") ? one : two;
    // After a checkpoint (every 5 s) is stored.
    await waitFor(async () => (await t.db.runResult.count({ where: { runId: firstId! } })) > 0, 15_000, "a checkpoint");
    victim.kill("SIGKILL");
    const killedAt = Date.now();
    const failed = await runEnd(a.caller, firstId!, 30_000);
    expect(failed.status).toBe("failed");
    // An agent's run says "agent" and names it (the organization's own), not "worker".
    expect(failed.error).toMatch(/^its agent lab-[12] stopped responding \(no heartbeat for \d+ s\)/);
    expect(Date.now() - killedAt).toBeLessThan(STALE_MS + 5_000);
    const partial = await t.db.runResult.findUniqueOrThrow({ where: { runId: firstId! } });
    expect((partial.metrics as Record<string, number>).requests).toBeGreaterThan(0);
    const second = await runEnd(a.caller, secondId!, 60_000);
    expect(second.status, second.error ?? "").toBe("succeeded");
    const row = await t.db.run.findUniqueOrThrow({ where: { id: secondId! } });
    expect(row.workerIds[0]).not.toBe(first.workerIds[0]);
    // Bring the fleet back to two for the tests below.
    if (victim === one) one = startAgent(a.agentToken, "lab-1");
    else two = startAgent(a.agentToken, "lab-2");
    await agentOnline(a.org.id, victim === one ? "lab-1" : "lab-2");
  }, 120_000);

  it("SIGTERM stops the load, sends the partial result and ends the run canceled", async () => {
    const tgt = await agentTarget(a, "term");
    const scenario = await a.caller.scenario.create({
      projectId: a.project.id,
      name: "term",
      spec: { engine: "http-open", rate: 50, durationS: 30 } as never,
    });
    const launched = await a.caller.run.launch({ targetId: tgt.id, scenarioId: scenario.id });
    const running = await waitFor(
      async () => {
        const r = await t.db.run.findUniqueOrThrow({ where: { id: launched.id } });
        return r.status === "running" && r.progress ? r : null;
      },
      20_000,
      "run to report progress",
    );
    const agent = running.workerIds[0]!.startsWith("agent:lab-1:") ? one : two;
    agent.kill("SIGTERM");
    expect(await exited(agent)).toBe(0);
    const run = await runEnd(a.caller, launched.id, 10_000);
    expect(run.status).toBe("canceled");
    expect(run.error).toMatch(/agent lab-\d shutting down; partial results kept/);
    const stored = await t.db.runResult.findUniqueOrThrow({ where: { runId: run.id } });
    expect((stored.metrics as Record<string, number>).requests).toBeGreaterThan(0);
    expect(
      (await t.db.agent.findFirstOrThrow({ where: { orgId: a.org.id, name: agent === one ? "lab-1" : "lab-2" } }))
        .stoppedAt,
    ).not.toBeNull();
  }, 60_000);

  it("a revoked token stops the agent within one poll", async () => {
    const b = await tenant("revoke");
    const agent = startAgent(b.agentToken, "rev-1");
    await agentOnline(b.org.id, "rev-1");
    const token = await t.db.apiToken.findFirstOrThrow({ where: { orgId: b.org.id, kind: "agent" } });
    const revokedAt = Date.now();
    await revokeApiToken(t.db, b.org.id, token.id);
    expect(await exited(agent)).toBe(2);
    // One long poll is 2 s here; the next call is refused.
    expect(Date.now() - revokedAt).toBeLessThan(6_000);
    expect(context()).toContain("[rev-1] [agent rev-1] the agent token was revoked");
  }, 30_000);
});

describe("trust: what only agents may reach", () => {
  it("install workers never take agent runs, and nothing on the install connects to an agent-only target", async () => {
    const c = await tenant("trust");
    // A worker offering the very label the agent run asks for, on the same Redis and prefix.
    const runner = await startRunner({
      databaseUrl: t.url,
      redisUrl,
      prefix,
      concurrency: 2,
      workerId: `w-${prefix}`,
      labels: ["lab"],
      healthPort: 0,
      log: (line) => logs.push(`[worker] ${line}\n`),
    });
    // The tenant's private Prometheus, which only its agent may query.
    const query = 'sum(container_memory_working_set_bytes{pod=~"gateway-.*"})';
    const prometheus = await startPrometheusApi(() => ({ series: [() => 512_000_000] }));
    try {
      const secret = await c.caller.target.create({
        projectId: c.project.id,
        name: "internal",
        kind: "http",
        baseUrl: internal.url,
        agentLabel: "lab",
        monitors: [
          { config: { kind: "prometheus", url: `${internal.url}/metrics` } },
          {
            config: {
              kind: "promql",
              url: prometheus.url,
              query,
              metric: "custom",
              name: "gateway_mem",
              unit: "bytes",
            },
          },
        ],
        configApplyUrl: `${internal.url}/admin/config`,
      } as never);
      const scenario = await c.caller.scenario.create({
        projectId: c.project.id,
        name: "s",
        spec: { engine: "http-open", rate: 20, durationS: 2 } as never,
      });
      // The web app's own requests: test connection and verification are refused outright.
      await expect(c.caller.target.testMonitors({ targetId: secret.id })).rejects.toThrow(/install never connects/);
      await expect(c.caller.target.verify({ targetId: secret.id, method: "http" })).rejects.toThrow(
        /install never connects/,
      );
      // An agent of the organization is known, but none runs yet: the run waits on the agents' queue.
      await t.db.agent.create({
        data: {
          orgId: c.org.id,
          tokenId: (await t.db.apiToken.findFirstOrThrow({ where: { orgId: c.org.id } })).id,
          name: "later",
          labels: ["lab"],
        },
      });
      const launched = await c.caller.run.launch({ targetId: secret.id, scenarioId: scenario.id });
      expect(await queueFor(agentQueueName(c.org.id, "lab")).getJobCounts("waiting")).toMatchObject({ waiting: 1 });
      await new Promise((r) => setTimeout(r, 3_000));
      expect((await t.db.run.findUniqueOrThrow({ where: { id: launched.id } })).status).toBe("queued");
      expect(internal.hits).toBe(0);
      // Even a job for it put straight on the worker's own queue is refused by the claim.
      await queueFor("runs@lab").add("run.execute", { runId: launched.id }, { jobId: `stray-${launched.id}` });
      await new Promise((r) => setTimeout(r, 2_000));
      expect((await t.db.run.findUniqueOrThrow({ where: { id: launched.id } })).status).toBe("queued");
      expect(internal.hits).toBe(0);
      expect(prometheus.queries).toHaveLength(0);
      // The agent reaches it: the server was there all along.
      const agent = startAgent(c.agentToken, "later");
      const run = await runEnd(c.caller, launched.id, 40_000);
      expect(run.status, run.error ?? "").toBe("succeeded");
      expect(internal.hits).toBeGreaterThan(0);
      // The agent evaluated the PromQL monitor over the run's window; the series is stored.
      expect(prometheus.queries.length).toBeGreaterThan(0);
      expect(prometheus.queries.every((q) => q.query === query)).toBe(true);
      const mem = await t.db.series.findFirst({ where: { runId: run.id, metric: "gauge.gateway_mem" } });
      expect(mem?.start.getTime()).toBe(prometheus.queries.at(-1)!.start * 1000);
      expect((mem?.values as number[]).length).toBeGreaterThanOrEqual(2);
      expect((mem?.values as number[]).every((v) => v === 512_000_000)).toBe(true);
      agent.kill("SIGTERM");
      await exited(agent);
    } finally {
      await runner.close();
      await prometheus.close();
    }
  }, 90_000);
});

/** One agent route called as an agent calls it. */
async function call(path: string, token: string, body: unknown) {
  const res = await fetch(`${rest.url}/api/v1${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: res.status === 204 ? null : ((await res.json()) as Record<string, unknown>) };
}

describe("agent tokens: an organization's agents see only its own runs and only the agent routes", () => {
  it("refuses claims, reads and reports on another organization's runs, and every other route", async () => {
    const a = await tenant("adv-a");
    const b = await tenant("adv-b");
    const announce = async (tn: Tenant, name: string) =>
      (await call("/agent/announce", tn.agentToken, { name, labels: ["lab"] })).body as { agent: { id: string } };
    const agentA = (await announce(a, "a-1")).agent.id;
    const agentB = (await announce(b, "b-1")).agent.id;

    const tgt = await agentTarget(b, "b-target");
    const scenario = await b.caller.scenario.create({
      projectId: b.project.id,
      name: "s",
      spec: { engine: "http-open", rate: 10, durationS: 1 } as never,
    });
    const launched = await b.caller.run.launch({ targetId: tgt.id, scenarioId: scenario.id });
    // A's agent, with the same label, waits in vain: B's run is on B's queue.
    expect(await call("/agent/claim", a.agentToken, { agentId: agentA, waitS: 1 })).toEqual({
      status: 204,
      body: null,
    });
    // Nor may it pose as B's agent.
    expect((await call("/agent/claim", a.agentToken, { agentId: agentB, waitS: 0 })).status).toBe(404);
    // B's agent takes it.
    const claimed = await call("/agent/claim", b.agentToken, { agentId: agentB, waitS: 5 });
    expect(claimed.status).toBe(200);
    expect((claimed.body as { assignment: { runId: string } }).assignment.runId).toBe(launched.id);
    // A's agent can neither read nor report on it.
    const progress = {
      elapsedMs: 1,
      fraction: 0.1,
      requests: 1,
      errors: 0,
      rps: 1,
      latencyP50Ms: 1,
      latencyP99Ms: 1,
    };
    const result = { metrics: { requests: 1 }, startedAt: Date.now() - 1000, endedAt: Date.now() };
    for (const [route, body] of [
      ["heartbeat", { agentId: agentA }],
      ["ready", { agentId: agentA }],
      ["progress", { agentId: agentA, progress }],
      ["checkpoint", { agentId: agentA, result }],
      ["result", { agentId: agentA, status: "succeeded", result }],
    ] as const) {
      const res = await call(`/agent/runs/${launched.id}/${route}`, a.agentToken, body);
      expect(res.status, route).toBe(404);
    }
    // B's API token (all scopes) is no agent token, and A's agent token is no API token.
    const api = await createApiToken(t.db, b.org.id, {
      name: "ci",
      scopes: ["runs:read", "runs:write", "runs:launch", "config:read", "config:write"],
      createdById: null,
    });
    expect((await call("/agent/claim", api.token, { agentId: agentB, waitS: 0 })).status).toBe(401);
    const read = await fetch(`${rest.url}/api/v1/runs/${launched.id}`, {
      headers: { authorization: `Bearer ${b.agentToken}` },
    });
    expect(read.status).toBe(401);
    const launch = await call("/runs/launch", b.agentToken, {
      project: b.project.id,
      scenario: "s",
      target: "b-target",
    });
    expect(launch.status).toBe(401);
    // B's agent reports; the run ends; nothing A sent changed it.
    const done = await call(`/agent/runs/${launched.id}/result`, b.agentToken, {
      agentId: agentB,
      status: "failed",
      error: "stopped by the test",
    });
    expect(done).toEqual({ status: 200, body: { ended: true } });
    expect((await b.caller.run.byId({ id: launched.id })).status).toBe("failed");
    // And the Workers page of each organization lists only its own agents.
    expect((await a.caller.agent.list()).map((x) => x.name)).toEqual(["a-1"]);
    expect((await b.caller.agent.list()).map((x) => x.name)).toEqual(["b-1"]);
  }, 60_000);

  it("stored secret headers never leave the install: the run fails naming the header", async () => {
    const d = await tenant("secret");
    const agentId = (
      (await call("/agent/announce", d.agentToken, { name: "s-1", labels: ["lab"] })).body as {
        agent: { id: string };
      }
    ).agent.id;
    const tgt = await d.caller.target.create({
      projectId: d.project.id,
      name: "with-secret",
      kind: "http",
      baseUrl: target.url,
      agentLabel: "lab",
      headers: [{ name: "x-api-key", value: "sk-live-do-not-leak", secret: true }],
    } as never);
    const scenario = await d.caller.scenario.create({
      projectId: d.project.id,
      name: "s",
      spec: { engine: "http-open", rate: 10, durationS: 1 } as never,
    });
    const launched = await d.caller.run.launch({ targetId: tgt.id, scenarioId: scenario.id });
    const claimed = await call("/agent/claim", d.agentToken, { agentId, waitS: 3 });
    expect(claimed.status).toBe(204);
    expect(JSON.stringify(claimed.body ?? "")).not.toContain("sk-live");
    const run = await runEnd(d.caller, launched.id, 5_000);
    expect(run.status).toBe("failed");
    expect(run.error).toMatch(/header x-api-key is stored as a secret.*\$\{env:NAME\}/);
  }, 30_000);
});

/**
 * Redis clients this test process holds, as Redis itself lists them (CLIENT LIST): the entries
 * whose address is the local end of one of this process's TCP sockets. Other processes on the
 * same Redis (other test files) do not count.
 */
async function ownRedisClients(): Promise<number> {
  const inodes = new Set<string>();
  for (const fd of readdirSync("/proc/self/fd")) {
    try {
      const link = readlinkSync(`/proc/self/fd/${fd}`);
      const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
      if (inode) inodes.add(inode);
    } catch {
      // The descriptor closed while we looked.
    }
  }
  const ports = new Set<number>();
  for (const table of ["/proc/self/net/tcp", "/proc/self/net/tcp6"]) {
    for (const line of readFileSync(table, "utf8").split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length > 9 && inodes.has(cols[9]!)) ports.add(Number.parseInt(cols[1]!.split(":")[1]!, 16));
    }
  }
  const clients = ((await redis.client("LIST")) as string).split("\n");
  return clients.filter((c) => {
    const port = /(?:^| )addr=\S*:(\d+)(?: |$)/.exec(c)?.[1];
    return port !== undefined && ports.has(Number(port));
  }).length;
}

const errorOf = (res: { body: unknown }) =>
  String((res.body as { error?: { message?: string } } | null)?.error?.message);

describe("agents' trust boundary: what an agent token may cost, and what an agent may still change", () => {
  const announceAs = async (tn: Tenant, name: string, labels: string[]) => {
    const res = await call("/agent/announce", tn.agentToken, { name, labels });
    return res as { status: number; body: { agent?: { id: string } } | null };
  };
  const agentIdOf = async (tn: Tenant, name: string, labels = ["lab"]) => {
    const res = await announceAs(tn, name, labels);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body!.agent!.id;
  };
  const quickScenario = (tn: Tenant, name: string) =>
    tn.caller.scenario.create({
      projectId: tn.project.id,
      name,
      spec: { engine: "http-open", rate: 10, durationS: 1 } as never,
    });

  it("claims cost no Redis connection per label: 32 labels polled, this process's Redis clients stay put", async () => {
    const e = await tenant("labels");
    const labelsOf = (i: number) => Array.from({ length: 16 }, (_, k) => `l${i}-${k}`);
    const ids = [await agentIdOf(e, "many-1", labelsOf(0)), await agentIdOf(e, "many-2", labelsOf(1))];
    const before = await ownRedisClients();
    const polling = Promise.all(ids.map((agentId) => call("/agent/claim", e.agentToken, { agentId, waitS: 2 })));
    await new Promise((r) => setTimeout(r, 1_000));
    const during = await ownRedisClients();
    const answers = await polling;
    const after = await ownRedisClients();
    expect(answers.map((a) => a.status)).toEqual([204, 204]);
    // Redis's own count, not the client's: 32 labels once cost 64 connections.
    expect(during - before).toBeLessThanOrEqual(1);
    expect(after - before).toBeLessThanOrEqual(1);
    // And a run on the 32nd label is still found.
    const tgt = await agentTarget(e, "last-label");
    const scenario = await quickScenario(e, "s");
    const launched = await e.caller.run.launch({ targetId: tgt.id, scenarioId: scenario.id, agentLabel: "l1-15" });
    const claimed = await call("/agent/claim", e.agentToken, { agentId: ids[1], waitS: 3 });
    expect(claimed.status).toBe(200);
    expect((claimed.body as { assignment: { runId: string } }).assignment.runId).toBe(launched.id);
    await call(`/agent/runs/${launched.id}/result`, e.agentToken, {
      agentId: ids[1],
      status: "failed",
      error: "ended by the test",
    });
  }, 30_000);

  it("refuses labels per organization and agents per token beyond the caps, naming each limit", async () => {
    const f = await tenant("label-cap");
    const perAgent = 16;
    const fits = AGENT_CAPS.labelsPerOrg / perAgent;
    for (let i = 0; i < fits; i++) {
      await agentIdOf(
        f,
        `cap-${i}`,
        Array.from({ length: perAgent }, (_, k) => `c${i}-${k}`),
      );
    }
    const over = await announceAs(f, "cap-over", ["one-more"]);
    expect(over.status).toBe(409);
    expect(errorOf(over)).toContain(`at most ${AGENT_CAPS.labelsPerOrg} labels`);
    expect(await t.db.agent.count({ where: { orgId: f.org.id, name: "cap-over" } })).toBe(0);
    // A label the organization already offers costs nothing more, and an agent may re-announce.
    await agentIdOf(f, "cap-again", ["c0-0"]);
    await agentIdOf(
      f,
      "cap-0",
      Array.from({ length: perAgent }, (_, k) => `c0-${k}`),
    );

    const g = await tenant("agent-cap");
    for (let i = 0; i < AGENT_CAPS.agentsPerToken; i++) await agentIdOf(g, `a-${i}`);
    const extra = await announceAs(g, "a-over", ["lab"]);
    expect(extra.status).toBe(409);
    expect(errorOf(extra)).toContain(`at most ${AGENT_CAPS.agentsPerToken} agents`);
    // An agent already announced restarts under its own name.
    await agentIdOf(g, "a-0");
  }, 60_000);

  it("refuses concurrent claims beyond the cap with 429, naming the limit", async () => {
    const h = await tenant("claim-cap");
    const agentId = await agentIdOf(h, "c-1");
    // A claim checked while another is briefly counted (the probe below, at waitS 0) may find the
    // cap full: it asks again, as an agent does after its Retry-After, so all of them end up waiting.
    const poll = async () => {
      for (;;) {
        const answer = await call("/agent/claim", h.agentToken, { agentId, waitS: 15 });
        if (answer.status !== 429) return answer;
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const polls = Array.from({ length: AGENT_CAPS.claimsPerOrg }, poll);
    // Once all of them wait on the server, one more is refused (until then it answers 204 at once).
    // Each claim checks its token and agent in PostgreSQL before it counts: on a busy machine all
    // of them may take seconds to get there, well inside their own wait.
    let over = await call("/agent/claim", h.agentToken, { agentId, waitS: 0 });
    for (const until = Date.now() + 12_000; over.status === 204 && Date.now() < until; ) {
      await new Promise((r) => setTimeout(r, 200));
      over = await call("/agent/claim", h.agentToken, { agentId, waitS: 0 });
    }
    expect(over.status).toBe(429);
    expect(errorOf(over)).toContain(`at most ${AGENT_CAPS.claimsPerOrg} claims`);
    expect((await Promise.all(polls)).every((p) => p.status === 204)).toBe(true);
    // Once they are answered, claiming works again.
    expect((await call("/agent/claim", h.agentToken, { agentId, waitS: 0 })).status).toBe(204);
  }, 45_000);

  it("an ended run takes no more reports: ready, heartbeat, progress and checkpoint answer 409 and change nothing", async () => {
    const k = await tenant("ended");
    const agentId = await agentIdOf(k, "e-1");
    const tgt = await agentTarget(k, "ended");
    const scenario = await quickScenario(k, "s");
    const launched = await k.caller.run.launch({ targetId: tgt.id, scenarioId: scenario.id });
    const claimed = await call("/agent/claim", k.agentToken, { agentId, waitS: 5 });
    expect(claimed.status).toBe(200);
    const progress = { elapsedMs: 1, fraction: 0.1, requests: 1, errors: 0, rps: 1, latencyP50Ms: 1, latencyP99Ms: 1 };
    const result = { metrics: { requests: 1 }, startedAt: Date.now() - 1000, endedAt: Date.now() };
    expect((await call(`/agent/runs/${launched.id}/ready`, k.agentToken, { agentId })).status).toBe(200);
    expect((await call(`/agent/runs/${launched.id}/checkpoint`, k.agentToken, { agentId, result })).status).toBe(200);
    const done = await call(`/agent/runs/${launched.id}/result`, k.agentToken, {
      agentId,
      status: "failed",
      error: "ended by the test",
    });
    expect(done).toEqual({ status: 200, body: { ended: true } });
    const before = await t.db.run.findUniqueOrThrow({ where: { id: launched.id }, include: { result: true } });
    await new Promise((r) => setTimeout(r, 20));
    const late = { metrics: { requests: 999_999 }, startedAt: Date.now() - 1000, endedAt: Date.now() };
    for (const [route, body] of [
      ["ready", { agentId, serverConfig: { workers: 64, rewritten: "after the end" } }],
      ["heartbeat", { agentId }],
      ["progress", { agentId, progress: { ...progress, requests: 999_999 } }],
      ["checkpoint", { agentId, result: late }],
    ] as const) {
      const res = await call(`/agent/runs/${launched.id}/${route}`, k.agentToken, body);
      expect(res.status, route).toBe(409);
      expect(errorOf(res), route).toMatch(/has ended \(failed\)/);
    }
    const after = await t.db.run.findUniqueOrThrow({ where: { id: launched.id }, include: { result: true } });
    expect(after.serverConfig).toEqual(before.serverConfig);
    expect(after.heartbeatAt).toEqual(before.heartbeatAt);
    expect(after.progress).toEqual(before.progress);
    expect(after.result?.metrics).toEqual(before.result?.metrics);
    expect(after.status).toBe("failed");

    // A shard that ended is as final, while its run and the other shard go on.
    const sharded = await k.caller.run.launch({ targetId: tgt.id, scenarioId: scenario.id, shards: 2 });
    for (let i = 0; i < 2; i++) {
      expect((await call("/agent/claim", k.agentToken, { agentId, waitS: 5 })).status).toBe(200);
    }
    const shardPath = (what: string) => `/agent/runs/${sharded.id}/${what}`;
    expect(
      await call(shardPath("result"), k.agentToken, { agentId, shard: 0, status: "failed", error: "shard 0 gave up" }),
    ).toEqual({ status: 200, body: { ended: true } });
    const shard0 = await call(shardPath("ready"), k.agentToken, { agentId, shard: 0, serverConfig: { late: true } });
    expect(shard0.status).toBe(409);
    expect(errorOf(shard0)).toMatch(/shard 1 of run .* has ended \(failed\)/);
    expect((await call(shardPath("heartbeat"), k.agentToken, { agentId, shard: 0 })).status).toBe(409);
    expect((await call(shardPath("heartbeat"), k.agentToken, { agentId, shard: 1 })).status).toBe(200);
    const still = await t.db.run.findUniqueOrThrow({ where: { id: sharded.id } });
    expect(still.status).toBe("running");
    expect(still.serverConfig).toBeNull();
    await call(shardPath("result"), k.agentToken, { agentId, shard: 1, status: "failed", error: "ended by the test" });
  }, 30_000);

  it("an agent whose run ended on the server (409 on its reports) stops its load within 2 s", async () => {
    const q = await tenant("ended-live");
    const agent = startAgent(q.agentToken, "end-1");
    await agentOnline(q.org.id, "end-1");
    const tgt = await agentTarget(q, "ended-live");
    const scenario = await q.caller.scenario.create({
      projectId: q.project.id,
      name: "long",
      spec: { engine: "http-open", rate: 50, durationS: 30 } as never,
    });
    const launched = await q.caller.run.launch({ targetId: tgt.id, scenarioId: scenario.id });
    await waitFor(async () => (await q.caller.run.byId({ id: launched.id })).status === "running", 20_000, "running");
    const started = target.requests.length;
    await waitFor(async () => target.requests.length - started > 60, 20_000, "load to flow");
    // Ended as the watchdog ends a run, without asking the agent: only the 409s tell it.
    await finishRun(t.db, launched.id, { status: "failed", error: "ended on the server by the test", result: null });
    const endedAt = Date.now();
    await waitFor(async () => context().includes(`run ${launched.id} ended`), 10_000, "the agent to stop");
    await new Promise((r) => setTimeout(r, 1_000));
    expect(target.requests.at(-1)! - endedAt).toBeLessThan(2_000);
    const run = await t.db.run.findUniqueOrThrow({ where: { id: launched.id } });
    expect(run.status).toBe("failed");
    expect(run.error).toBe("ended on the server by the test");
    agent.kill("SIGTERM");
    await exited(agent);
  }, 60_000);

  it("a token revoked during the claim's long poll is handed no run: 401, and the run waits for a valid agent", async () => {
    const m = await tenant("revoked-claim");
    const agentId = await agentIdOf(m, "r-1");
    const tgt = await agentTarget(m, "revoked");
    const scenario = await quickScenario(m, "s");
    const polling = call("/agent/claim", m.agentToken, { agentId, waitS: 6 });
    await new Promise((r) => setTimeout(r, 500));
    const token = await t.db.apiToken.findFirstOrThrow({ where: { orgId: m.org.id, kind: "agent" } });
    await revokeApiToken(t.db, m.org.id, token.id);
    const launched = await m.caller.run.launch({ targetId: tgt.id, scenarioId: scenario.id });
    const answer = await polling;
    expect(answer.status).toBe(401);
    expect(JSON.stringify(answer.body)).not.toContain(launched.id);
    const run = await t.db.run.findUniqueOrThrow({ where: { id: launched.id } });
    expect(run.status).toBe("queued");
    expect(run.workerIds).toEqual([]);
    // A valid agent of the organization still gets it.
    const fresh = await createAgentToken(t.db, m.org.id, { name: "fresh", createdById: null });
    const freshId = (await call("/agent/announce", fresh.token, { name: "r-2", labels: ["lab"] })).body as {
      agent: { id: string };
    };
    const claimed = await call("/agent/claim", fresh.token, { agentId: freshId.agent.id, waitS: 3 });
    expect(claimed.status).toBe(200);
    expect((claimed.body as { assignment: { runId: string } }).assignment.runId).toBe(launched.id);
    await call(`/agent/runs/${launched.id}/result`, fresh.token, {
      agentId: freshId.agent.id,
      status: "failed",
      error: "ended by the test",
    });
  }, 30_000);

  it("an agent that stopped while its claim waited is handed no run: the next agent gets it", async () => {
    const m = await tenant("stopped-claim");
    const agentId = await agentIdOf(m, "gone-1");
    const tgt = await agentTarget(m, "stopped");
    const scenario = await quickScenario(m, "s");
    const polling = call("/agent/claim", m.agentToken, { agentId, waitS: 6 });
    await new Promise((r) => setTimeout(r, 500));
    expect((await call("/agent/stop", m.agentToken, { agentId })).status).toBe(200);
    const launched = await m.caller.run.launch({ targetId: tgt.id, scenarioId: scenario.id, queueWithoutAgent: true });
    const answer = await polling;
    expect(answer.status).toBe(204);
    const run = await t.db.run.findUniqueOrThrow({ where: { id: launched.id } });
    expect(run.status).toBe("queued");
    expect(run.workerIds).toEqual([]);
    // The stale claim did not bring the stopped agent back online.
    expect((await t.db.agent.findUniqueOrThrow({ where: { id: agentId } })).stoppedAt).not.toBeNull();
    const nextId = await agentIdOf(m, "next-1");
    const claimed = await call("/agent/claim", m.agentToken, { agentId: nextId, waitS: 3 });
    expect(claimed.status).toBe(200);
    expect((claimed.body as { assignment: { runId: string } }).assignment.runId).toBe(launched.id);
    await call(`/agent/runs/${launched.id}/result`, m.agentToken, {
      agentId: nextId,
      status: "failed",
      error: "ended by the test",
    });
  }, 30_000);

  it("the agent reads only environment names its operator allows, and never its own token", async () => {
    const n = await tenant("env");
    // The allow-list from the environment form; `BENCHBOARD_*` would match the token, which is never read.
    const agent = startAgent(n.agentToken, "env-1", [], { BENCHBOARD_AGENT_ALLOW_ENV: "GATEWAY_KEY,BENCHBOARD_*" });
    await agentOnline(n.org.id, "env-1");
    const scenario = await quickScenario(n, "s");
    const seenBefore = new Set(target.authorization);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the placeholder the agent resolves from its environment
    const cloud = await agentTarget(n, "cloud", [{ name: "authorization", value: "${env:CLOUD_SECRET}" }]);
    const refused = await runEnd(
      n.caller,
      (await n.caller.run.launch({ targetId: cloud.id, scenarioId: scenario.id })).id,
    );
    expect(refused.status).toBe("failed");
    expect(refused.error).toMatch(/header authorization.*CLOUD_SECRET.*--allow-env CLOUD_SECRET/);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the placeholder the agent resolves from its environment
    const own = await agentTarget(n, "own-token", [{ name: "authorization", value: "${env:BENCHBOARD_AGENT_TOKEN}" }]);
    const never = await runEnd(n.caller, (await n.caller.run.launch({ targetId: own.id, scenarioId: scenario.id })).id);
    expect(never.status).toBe("failed");
    expect(never.error).toMatch(/header authorization.*BENCHBOARD_AGENT_TOKEN/);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the placeholder the agent resolves from its environment
    const allowed = await agentTarget(n, "gateway", [{ name: "authorization", value: "${env:GATEWAY_KEY}" }]);
    const ok = await runEnd(
      n.caller,
      (await n.caller.run.launch({ targetId: allowed.id, scenarioId: scenario.id })).id,
    );
    expect(ok.status, ok.error ?? "").toBe("succeeded");
    const seen = [...target.authorization].filter((v) => !seenBefore.has(v));
    expect(seen).not.toContain(AGENT_HOST_ENV.CLOUD_SECRET);
    expect(seen).not.toContain(n.agentToken);
    expect([...target.authorization]).toContain(AGENT_HOST_ENV.GATEWAY_KEY);
    expect(JSON.stringify([refused.error, never.error])).not.toContain(AGENT_HOST_ENV.CLOUD_SECRET);
    agent.kill("SIGTERM");
    await exited(agent);
  }, 60_000);
});
