import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { createCaller } from "@benchboard/api";
import { createAgentToken, createApiToken } from "@benchboard/db";
import type { TestDatabase } from "@benchboard/db/testing";
import { DEFAULT_REDIS_URL } from "@benchboard/jobs";
import type { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentStack, startAgentStack } from "../test/agent-stack";
import { waitFor as waitForIn } from "../test/wait";

// Agents that announce limits, with real parts: `benchboard agent` processes (one with
// --max-rate 10, one without), launches through tRPC and REST, and a target that counts what
// reaches it. A run beyond an agent's limit goes to the agent that can take it; a launch no
// online agent of the label could take is refused naming the label and the limit.

const CLI = fileURLToPath(new URL("../../../apps/cli/bin/benchboard.js", import.meta.url));
const redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
const prefix = `bblimits-${randomBytes(4).toString("hex")}`;

let stack: AgentStack | undefined;
let t: TestDatabase;
let queue: Queue;
let queueFor: AgentStack["queueFor"];
let rest: AgentStack["rest"];
let targetServer: http.Server;
let targetUrl = "";
let hits = 0;
const logs: string[] = [];
const children: ChildProcess[] = [];

beforeAll(async () => {
  targetServer = http.createServer((_req, res) => {
    hits++;
    res.end("ok");
  });
  await new Promise<void>((resolve) => targetServer.listen(0, "127.0.0.1", resolve));
  targetUrl = `http://127.0.0.1:${(targetServer.address() as AddressInfo).port}`;
  stack = await startAgentStack(redisUrl, prefix);
  ({ t, queue, queueFor, rest } = stack);
}, 60_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  await stack?.close();
  targetServer?.close();
});

const context = () => logs.join("");
const waitFor = <T>(check: () => Promise<T | false | null | undefined>, timeoutMs: number, what: string) =>
  waitForIn(check, timeoutMs, what, context);

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once("exit", (code) => resolve(code));
  });

/** A real agent process; resolves once it announced. */
async function startAgent(token: string, name: string, args: string[]) {
  const child = spawn(process.execPath, [CLI, "agent", "--url", rest.url, "--name", name, "--poll-s", "2", ...args], {
    env: { PATH: process.env.PATH ?? "", BENCHBOARD_AGENT_TOKEN: token },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (d) => logs.push(`[${name}] ${d}`));
  child.stderr?.on("data", (d) => logs.push(`[${name}] ${d}`));
  children.push(child);
  await waitFor(
    async () => logs.some((l) => l.startsWith(`[${name}] `) && l.includes("connected to")),
    30_000,
    `agent ${name} to announce`,
  );
  return child;
}

function cli(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? "", BENCHBOARD_URL: rest.url, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d) => {
    stdout += d;
  });
  child.stderr?.on("data", (d) => {
    stderr += d;
  });
  return exited(child).then((code) => ({ code, stdout, stderr }));
}

const linesOf = (name: string) =>
  logs
    .filter((l) => l.startsWith(`[${name}] `))
    .join("")
    .split("\n");

describe("agents announce their limits", () => {
  it("a run beyond one agent's --max-rate goes to an agent that can take it, and a launch none can take is refused naming the label and the limit", async () => {
    const org = await t.db.organization.create({
      data: { name: "Limits", slug: `limits-${randomBytes(3).toString("hex")}`, caps: { maxConcurrentRuns: 4 } },
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
    const { token: agentToken } = await createAgentToken(t.db, org.id, { name: "agents", createdById: null });
    const { token: apiToken } = await createApiToken(t.db, org.id, {
      name: "ci",
      scopes: ["runs:read", "runs:launch", "config:read"],
      createdById: null,
    });
    const project = await caller.project.create({ name: "limits" });
    const target = await caller.target.create({
      projectId: project.id,
      name: "api",
      kind: "http",
      baseUrl: targetUrl,
    } as never);
    const fast = await caller.scenario.create({
      projectId: project.id,
      name: "fast",
      spec: { engine: "http-open", rate: 40, durationS: 1 } as never,
    });

    const small = await startAgent(agentToken, "small", ["--label", "lab", "--max-rate", "10"]);
    expect(linesOf("small").join("\n")).toContain("max 10 req/s");
    const row = await t.db.agent.findFirstOrThrow({ where: { orgId: org.id, name: "small" } });
    expect({ maxRate: row.maxRate, maxConnections: row.maxConnections, engines: row.engines }).toEqual({
      maxRate: 10,
      maxConnections: null,
      engines: [],
    });

    // Only the small agent is online: the launch is refused (tRPC and REST), nothing is stored.
    await expect(caller.run.launch({ targetId: target.id, scenarioId: fast.id, agentLabel: "lab" })).rejects.toThrow(
      /no online agent labelled lab can take the run: it asks for 40 req\/s; agent small takes at most 10 req\/s \(--max-rate\)/,
    );
    const res = await fetch(`${rest.url}/api/v1/runs/launch`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiToken}`, "content-type": "application/json" },
      body: JSON.stringify({ project: project.id, scenario: "fast", target: "api", agentLabel: "lab" }),
    });
    expect(res.status).toBe(409);
    const refusal = (await res.json()) as { error: { message: string; field?: string } };
    expect(refusal.error.field).toBe("agentLabel");
    expect(refusal.error.message).toContain("no online agent labelled lab can take the run");
    expect(refusal.error.message).toContain("10 req/s (--max-rate)");
    expect(refusal.error.message).toContain("queueWithoutAgent");
    expect(await t.db.run.count({ where: { orgId: org.id } })).toBe(0);

    // A run within its limit is accepted and the small agent runs it.
    const slow = await caller.scenario.create({
      projectId: project.id,
      name: "slow",
      spec: { engine: "http-open", rate: 5, durationS: 1 } as never,
    });
    const within = await caller.run.launch({ targetId: target.id, scenarioId: slow.id, agentLabel: "lab" });
    const endedWithin = await waitFor(
      async () => {
        const run = await caller.run.byId({ id: within.id });
        return ["succeeded", "failed", "canceled"].includes(run.status) ? run : null;
      },
      30_000,
      "the run within the small agent's limit",
    );
    expect(endedWithin.status, endedWithin.error ?? "").toBe("succeeded");
    expect(endedWithin.placement?.shards.map((s) => s.agent)).toEqual(["small"]);

    // With an agent that can take it online, the same launch is accepted; the small agent, which
    // asks for work all along, passes over it and the big one runs it (an unsharded run, then a
    // run of two shards of 20 req/s each, both still beyond 10).
    const big = await startAgent(agentToken, "big", ["--label", "lab", "--capacity", "2"]);
    const hitsBefore = hits;
    const single = await caller.run.launch({ targetId: target.id, scenarioId: fast.id, agentLabel: "lab" });
    const sharded = await caller.run.launch({
      targetId: target.id,
      scenarioId: fast.id,
      agentLabel: "lab",
      shards: 2,
    });
    const ended = await waitFor(
      async () => {
        const runs = await Promise.all([single.id, sharded.id].map((id) => caller.run.byId({ id })));
        return runs.every((r) => ["succeeded", "failed", "canceled"].includes(r.status)) ? runs : null;
      },
      45_000,
      "both runs to end",
    );
    for (const run of ended) expect(run.status, `${run.error}\n${context()}`).toBe("succeeded");
    expect(hits - hitsBefore).toBeGreaterThanOrEqual(60);
    expect(ended[0]!.placement).toMatchObject({
      runsOn: "agent",
      label: "lab",
      shardCount: 1,
      shards: [{ shard: 1, status: "succeeded", agent: "big" }],
      agents: ["big"],
    });
    expect(ended[1]!.placement).toMatchObject({
      shardCount: 2,
      shards: [
        { shard: 1, status: "succeeded", agent: "big" },
        { shard: 2, status: "succeeded", agent: "big" },
      ],
      agents: ["big"],
    });
    // The small agent took only the run that fit it, and never refused one for its limit.
    const smallLog = linesOf("small").join("\n");
    expect(smallLog.match(/ started/g)?.length ?? 0).toBe(1);
    expect(smallLog).not.toContain("above the limit");

    // GET /runs/{id} carries the label, the shards (from 1) and the agents.
    const got = await fetch(`${rest.url}/api/v1/runs/${sharded.id}`, {
      headers: { authorization: `Bearer ${apiToken}` },
    });
    expect(got.status).toBe(200);
    const body = (await got.json()) as { placement: unknown };
    expect(body.placement).toEqual({
      runsOn: "agent",
      label: "lab",
      shardCount: 2,
      shards: [
        { shard: 1, status: "succeeded", agent: "big", worker: null, error: null },
        { shard: 2, status: "succeeded", agent: "big", worker: null, error: null },
      ],
      agents: ["big"],
    });

    // `benchboard run --wait --json` carries the same placement.
    const cliRun = await cli(
      [
        "run",
        "fast",
        "--project",
        project.id,
        "--target",
        "api",
        "--agent-label",
        "lab",
        "--wait",
        "--json",
        "--allow-invalid",
      ],
      { BENCHBOARD_TOKEN: apiToken },
    );
    expect(cliRun.code, cliRun.stderr).toBe(0);
    expect((JSON.parse(cliRun.stdout) as { placement: unknown }).placement).toMatchObject({
      runsOn: "agent",
      label: "lab",
      shards: [{ shard: 1, status: "succeeded", agent: "big" }],
      agents: ["big"],
    });
    // The organization's agent list shows what each announced it takes.
    const listed = await caller.agent.list();
    expect(listed.find((a) => a.name === "small")?.limits).toEqual({ maxRate: 10, maxConnections: null, engines: [] });

    // An agent that runs only some engines: a run of another engine is refused on its label.
    const closedOnly = await startAgent(agentToken, "closed-only", ["--label", "closed", "--engine", "http-closed"]);
    expect((await t.db.agent.findFirstOrThrow({ where: { orgId: org.id, name: "closed-only" } })).engines).toEqual([
      "http-closed",
    ]);
    await expect(caller.run.launch({ targetId: target.id, scenarioId: slow.id, agentLabel: "closed" })).rejects.toThrow(
      /no online agent labelled closed can take the run: it runs the http-open engine; agent closed-only runs only http-closed \(--engine\)/,
    );

    for (const child of [small, big, closedOnly]) child.kill("SIGTERM");
    expect(await exited(small)).toBe(0);
    expect(await exited(big)).toBe(0);
    expect(await exited(closedOnly)).toBe(0);
  }, 120_000);
});
