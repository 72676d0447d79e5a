import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { createCaller } from "@benchboard/api";
import { createAgentToken, type LifecycleDeps, startRunWatchdog } from "@benchboard/db";
import type { TestDatabase } from "@benchboard/db/testing";
import { createDispatch, DEFAULT_REDIS_URL } from "@benchboard/jobs";
import { mergeShardResults } from "@benchboard/loadgen";
import { startPrometheusApi } from "@benchboard/loadgen/test/prometheus-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentStack, startAgentStack } from "../test/agent-stack";
import { waitFor as waitForIn } from "../test/wait";

// Monitors on agents, with real parts: `benchboard agent` processes (the CLI as a user runs it)
// claim runs over HTTP and sample a Prometheus /metrics endpoint, a PromQL API and a local
// process on 127.0.0.1; the web app's watchdog ends a shard whose agent was SIGKILLed. The run
// keeps what the lead's monitors sampled before it died, and the surviving shard samples the rest.

const CLI = fileURLToPath(new URL("../../../apps/cli/bin/benchboard.js", import.meta.url));
const redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
const prefix = `bbagentmon-${randomBytes(4).toString("hex")}`;
const STALE_MS = 4_000;
const QUERY = 'sum(container_memory_working_set_bytes{pod=~"gateway-.*"})';

let stack: AgentStack | undefined;
let t: TestDatabase;
let stopWatchdog: (() => void) | undefined;
let prometheus: Awaited<ReturnType<typeof startPrometheusApi>> | undefined;
const logs: string[] = [];
const agents: ChildProcess[] = [];

/** The target: quick answers, and a /metrics whose memory reading rises by one per scrape. */
const target = { server: null as http.Server | null, url: "", scrapes: 0 };

beforeAll(async () => {
  target.server = http.createServer((req, res) => {
    if (req.url === "/metrics") {
      target.scrapes++;
      res.setHeader("content-type", "text/plain; version=0.0.4");
      res.end(
        `# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes ${200_000_000 + target.scrapes}\n`,
      );
      return;
    }
    setTimeout(() => res.end("ok"), 5);
  });
  target.server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve) => target.server?.listen(0, "127.0.0.1", resolve));
  target.url = `http://127.0.0.1:${(target.server.address() as AddressInfo).port}`;
  // Its value is the second it is read for, so a value counted twice in the merge shows.
  prometheus = await startPrometheusApi(() => ({ series: [(t) => t] }));
  stack = await startAgentStack(redisUrl, prefix);
  t = stack.t;
  const lifecycle: LifecycleDeps = { dispatch: createDispatch(stack.queueFor), mergeShards: mergeShardResults };
  stopWatchdog = startRunWatchdog(t.db, { ...lifecycle, staleAfterMs: STALE_MS, everyMs: 500 });
}, 60_000);

afterAll(async () => {
  for (const a of agents) if (a.exitCode === null && a.signalCode === null) a.kill("SIGKILL");
  stopWatchdog?.();
  await stack?.close();
  await prometheus?.close();
  target.server?.close();
});

const waitFor = <T>(check: () => Promise<T | false | null | undefined>, timeoutMs: number, what: string) =>
  waitForIn(check, timeoutMs, what, () => logs.join(""));

function startAgent(token: string, name: string) {
  const child = spawn(
    process.execPath,
    [CLI, "agent", "--url", stack!.rest.url, "--name", name, "--label", "mon", "--poll-s", "2"],
    { env: { PATH: process.env.PATH ?? "", BENCHBOARD_AGENT_TOKEN: token }, stdio: ["ignore", "pipe", "pipe"] },
  );
  child.stdout?.on("data", (d) => logs.push(`[${name}] ${d}`));
  child.stderr?.on("data", (d) => logs.push(`[${name}] ${d}`));
  agents.push(child);
  return child;
}

type StoredSeries = { start: string | number; intervalMs: number; values: (number | null)[] };

/** Epoch ms → value of a series' non-null samples. */
function samples(s: { start: Date | string | number; intervalMs: number; values: unknown }): Map<number, number> {
  const start = new Date(s.start).getTime();
  const out = new Map<number, number>();
  (s.values as (number | null)[]).forEach((v, i) => {
    if (v !== null) out.set(start + i * s.intervalMs, v);
  });
  return out;
}

/** A tenant organization (not the install's) with an agent token and a project. */
async function tenant(label: string) {
  const org = await t.db.organization.create({
    data: { name: `Tenant ${label}`, slug: `tenant-${label}-${randomBytes(3).toString("hex")}` },
  });
  const caller = createCaller({
    db: t.db,
    queue: stack!.queue,
    queueFor: stack!.queueFor,
    orgId: org.id,
    userId: null,
    role: "owner",
    secretKey: randomBytes(32),
  });
  const { token } = await createAgentToken(t.db, org.id, { name: `agents ${label}`, createdById: null });
  const project = await caller.project.create({ name: `p-${label}` });
  return { org, caller, token, project };
}

const agentOnline = (orgId: string, name: string) =>
  waitFor(
    async () => (await t.db.agent.findFirst({ where: { orgId, name, stoppedAt: null } })) !== null,
    30_000,
    `agent ${name} to announce`,
  );

const runEnd = (caller: Awaited<ReturnType<typeof tenant>>["caller"], id: string) =>
  waitFor(
    async () => {
      const r = await caller.run.byId({ id });
      return ["succeeded", "failed", "canceled"].includes(r.status) ? r : null;
    },
    60_000,
    "the run to end",
  );

describe("agent monitors", () => {
  it("a tenant's agent-only target watches a local process on the agent's host", async () => {
    const { org, caller, token, project } = await tenant("proc");
    const agent = startAgent(token, "proc-1");
    await agentOnline(org.id, "proc-1");
    // The target server listens in this test's process: the agent finds it by its port.
    const port = Number(new URL(target.url).port);
    const tgt = await caller.target.create({
      projectId: project.id,
      name: "local",
      kind: "http",
      baseUrl: target.url,
      agentLabel: "mon",
      monitors: [{ config: { kind: "process", port } }],
    } as never);
    const scenario = await caller.scenario.create({
      projectId: project.id,
      name: "short",
      spec: { engine: "http-open", rate: 20, durationS: 3 } as never,
    });
    const launched = await caller.run.launch({ targetId: tgt.id, scenarioId: scenario.id });
    const run = await runEnd(caller, launched.id);
    expect(run.status, run.error ?? "").toBe("succeeded");
    const mem = await t.db.series.findFirst({ where: { runId: run.id, metric: "mem_bytes" } });
    const readings = ((mem?.values ?? []) as (number | null)[]).filter((v): v is number => v !== null);
    expect(readings.length).toBeGreaterThanOrEqual(2);
    // This process's resident memory, read from /proc by the agent (the same host here).
    const rss = process.memoryUsage().rss;
    for (const v of readings) {
      expect(v).toBeGreaterThan(rss / 4);
      expect(v).toBeLessThan(rss * 4);
    }
    expect(await t.db.series.count({ where: { runId: run.id, metric: "cpu_cores" } })).toBe(1);
    const stored = await t.db.runResult.findUniqueOrThrow({ where: { runId: run.id } });
    expect((stored.extra as { monitorErrors?: unknown } | null)?.monitorErrors).toBeUndefined();
    agent.kill("SIGTERM");
  }, 90_000);

  it("a SIGKILLed lead keeps the monitor series it sampled, and the surviving shard takes the monitors over", async () => {
    const { org, caller, token, project } = await tenant("mon");
    const agentByName = new Map([
      ["mon-1", startAgent(token, "mon-1")],
      ["mon-2", startAgent(token, "mon-2")],
    ]);
    for (const name of agentByName.keys()) await agentOnline(org.id, name);
    const tgt = await caller.target.create({
      projectId: project.id,
      name: "gateway",
      kind: "http",
      baseUrl: target.url,
      agentLabel: "mon",
      monitors: [
        { config: { kind: "prometheus", url: `${target.url}/metrics` } },
        {
          config: {
            kind: "promql",
            url: prometheus!.url,
            query: QUERY,
            metric: "custom",
            name: "gw_mem",
            unit: "bytes",
          },
        },
      ],
    } as never);
    const scenario = await caller.scenario.create({
      projectId: project.id,
      name: "open",
      spec: { engine: "http-open", rate: 40, durationS: 22 } as never,
    });
    const launched = await caller.run.launch({ targetId: tgt.id, scenarioId: scenario.id, shards: 2 });

    // The lead (shard 0) has stored a checkpoint after several seconds of sampling.
    const leadShard = await waitFor(
      async () => {
        const s = await t.db.runShard.findFirst({ where: { runId: launched.id, index: 0 } });
        const requests = (s?.result as { metrics?: { requests?: number } } | null)?.metrics?.requests ?? 0;
        return s?.workerId && s.startedAt && Date.now() - s.startedAt.getTime() >= 7_000 && requests > 0 ? s : null;
      },
      40_000,
      "the lead shard's checkpoint after 7 s",
    );
    const leadName = /^agent:([^:]+):/.exec(leadShard.workerId!)?.[1];
    const lead = agentByName.get(leadName ?? "");
    expect(lead, `lead worker ${leadShard.workerId}`).toBeDefined();
    const checkpoint = (leadShard.result as { series?: Record<string, StoredSeries> }).series ?? {};
    lead!.kill("SIGKILL");
    const killedAt = Date.now();
    const scrapesAtKill = target.scrapes;

    const run = await runEnd(caller, launched.id);
    // The lost shard fails the run; what both shards measured is kept.
    expect(run.status).toBe("failed");
    expect(run.error).toMatch(/1 of 2 shards failed/);
    const shards = await t.db.runShard.findMany({ where: { runId: run.id }, orderBy: { index: "asc" } });
    expect(shards.map((s) => s.status)).toEqual(["failed", "succeeded"]);

    const stored = async (metric: string) => {
      const row = await t.db.series.findFirst({ where: { runId: run.id, metric } });
      expect(row, `series ${metric}`).not.toBeNull();
      return samples(row!);
    };

    // Memory from the /metrics endpoint: the lead's samples before the kill are in the run, value
    // for value as its last checkpoint carried them.
    const mem = await stored("mem_bytes");
    const before = [...mem].filter(([at]) => at < killedAt);
    expect(before.length).toBeGreaterThanOrEqual(4);
    expect(checkpoint.mem_bytes, "the lead's checkpoint carries its memory series").toBeDefined();
    const checkpointed = samples(checkpoint.mem_bytes!);
    expect(checkpointed.size).toBeGreaterThanOrEqual(4);
    for (const [at, value] of checkpointed) expect(mem.get(at)).toBe(value);
    // Every stored reading is one the target served (no sums of two shards' readings).
    for (const value of mem.values()) {
      expect(value).toBeGreaterThan(200_000_000);
      expect(value).toBeLessThanOrEqual(200_000_000 + target.scrapes);
    }
    // After the lead was found lost, the other shard watched the monitors until the run's end.
    const after = [...mem].filter(([at]) => at > killedAt + STALE_MS);
    expect(after.length).toBeGreaterThanOrEqual(3);
    expect(after.every(([, value]) => value > 200_000_000 + scrapesAtKill)).toBe(true);
    expect(logs.join("")).toMatch(/the lead shard was lost; this shard watches the monitors from now/);

    // The PromQL series: read over the lead's window at its checkpoint, and over the taker's
    // window at the end; each second's value is the second itself, so none was counted twice.
    const promql = await stored("gauge.gw_mem");
    expect([...promql].filter(([at]) => at < killedAt).length).toBeGreaterThanOrEqual(4);
    expect([...promql].filter(([at]) => at > killedAt + STALE_MS).length).toBeGreaterThanOrEqual(3);
    for (const [at, value] of promql) expect(value).toBe(at / 1000);

    // The run's memory peak is read from the kept series.
    const result = await t.db.runResult.findUniqueOrThrow({ where: { runId: run.id } });
    expect((result.metrics as Record<string, number>).mem_peak_bytes).toBe(Math.max(...mem.values()));
    for (const a of agentByName.values()) if (a.exitCode === null && a.signalCode === null) a.kill("SIGTERM");
  }, 120_000);
});
