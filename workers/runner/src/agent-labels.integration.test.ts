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
import { readEnv, runnerOptionsFromEnv } from "./env";
import { startRunner } from "./worker";

// Runs for agent labels nobody serves, with real parts: launches through tRPC, REST and the CLI
// (a child process), real `benchboard agent` processes that announce and stop, and a worker
// whose watchdog gives up on waiting runs after the bound its environment sets.

const CLI = fileURLToPath(new URL("../../../apps/cli/bin/benchboard.js", import.meta.url));
const redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
const prefix = `bblabels-${randomBytes(4).toString("hex")}`;
/** The smallest give-up the worker accepts; the watchdog passes every 5 s. */
const GIVE_UP_S = 10;

let stack: AgentStack | undefined;
let t: TestDatabase;
let queue: Queue;
let queueFor: AgentStack["queueFor"];
let rest: AgentStack["rest"];
let runner: Awaited<ReturnType<typeof startRunner>>;
let targetServer: http.Server;
let targetUrl = "";
const logs: string[] = [];
const children: ChildProcess[] = [];

beforeAll(async () => {
  targetServer = http.createServer((_req, res) => res.end("ok"));
  await new Promise<void>((resolve) => targetServer.listen(0, "127.0.0.1", resolve));
  targetUrl = `http://127.0.0.1:${(targetServer.address() as AddressInfo).port}`;
  stack = await startAgentStack(redisUrl, prefix);
  ({ t, queue, queueFor, rest } = stack);
  // An install worker configured from its environment as in production: its watchdog is what
  // gives up on runs no agent takes.
  const env = readEnv({
    DATABASE_URL: t.url,
    REDIS_URL: redisUrl,
    BENCHBOARD_QUEUE_PREFIX: prefix,
    BENCHBOARD_WORKER_ID: `w-${prefix}`,
    BENCHBOARD_QUEUE_GIVE_UP_S: String(GIVE_UP_S),
  });
  runner = await startRunner({
    ...runnerOptionsFromEnv(env, {}),
    notify: false,
    log: (line) => logs.push(`[worker] ${line}\n`),
  });
}, 60_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  await runner?.close();
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

/** A tenant organization allowed one run at a time, with an agent token, an API token and a scenario. */
async function tenant(name: string, maxConcurrentRuns = 1) {
  const org = await t.db.organization.create({
    data: {
      name: `Tenant ${name}`,
      slug: `labels-${name}-${randomBytes(3).toString("hex")}`,
      caps: { maxConcurrentRuns },
    },
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
  const project = await caller.project.create({ name: `p-${name}` });
  const plain = await caller.target.create({
    projectId: project.id,
    name: "api",
    kind: "http",
    baseUrl: targetUrl,
  } as never);
  const scenario = await caller.scenario.create({
    projectId: project.id,
    name: "s",
    spec: { engine: "http-open", rate: 5, durationS: 1 } as never,
  });
  return { org, caller, agentToken, apiToken, project, plain, scenario };
}

/** A real agent process that announces `label`, then stops on SIGTERM (its row says when). */
async function agentThatLeaves(orgId: string, token: string, name: string, label: string) {
  const child = spawn(
    process.execPath,
    [CLI, "agent", "--url", rest.url, "--name", name, "--label", label, "--poll-s", "2"],
    {
      env: { PATH: process.env.PATH ?? "", BENCHBOARD_AGENT_TOKEN: token },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  child.stdout?.on("data", (d) => logs.push(`[${name}] ${d}`));
  child.stderr?.on("data", (d) => logs.push(`[${name}] ${d}`));
  children.push(child);
  // Announced, and its answer read: the agent now stops on SIGTERM (and says so to the server).
  await waitFor(
    async () => logs.some((l) => l.startsWith(`[${name}] `) && l.includes("connected to")),
    30_000,
    `agent ${name} to announce`,
  );
  // It installs its signal handlers right after saying so; a busy machine may lag a moment.
  await new Promise((r) => setTimeout(r, 500));
  child.kill("SIGTERM");
  expect(await exited(child), `${child.signalCode}\n${context()}`).toBe(0);
  // The claim it had open on the server ends within its poll time (2 s); only then is it gone.
  await new Promise((r) => setTimeout(r, 3_000));
  return t.db.agent.findFirstOrThrow({ where: { orgId, name } });
}

const isoSeconds = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, "Z");

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

describe("agent labels nobody serves", () => {
  it("a launch on a label whose agents are all offline, or that no agent ever announced, is refused with 409 naming the label and when", async () => {
    const a = await tenant("refused");
    const gone = await agentThatLeaves(a.org.id, a.agentToken, "gone-1", "gone");
    const lastSeen = isoSeconds(gone.stoppedAt ?? gone.lastSeenAt);
    // tRPC (the launch form): the label's only agent stopped.
    await expect(
      a.caller.run.launch({ targetId: a.plain.id, scenarioId: a.scenario.id, agentLabel: "gone" }),
    ).rejects.toThrow(new RegExp(`no agent labelled gone is online \\(last seen ${lastSeen}\\)`));
    // An agent-only target whose label no agent ever announced.
    const only = await a.caller.target.create({
      projectId: a.project.id,
      name: "private",
      kind: "http",
      baseUrl: targetUrl,
      agentLabel: "never",
    } as never);
    await expect(a.caller.run.launch({ targetId: only.id, scenarioId: a.scenario.id })).rejects.toThrow(
      /no agent labelled never is online \(no agent has ever announced it\)/,
    );
    // REST answers 409 in the shape of every launch refusal, naming the field.
    const res = await fetch(`${rest.url}/api/v1/runs/launch`, {
      method: "POST",
      headers: { authorization: `Bearer ${a.apiToken}`, "content-type": "application/json" },
      body: JSON.stringify({ project: a.project.id, scenario: "s", target: "api", agentLabel: "gone" }),
    });
    expect(res.status).toBe(409);
    const body = (await res.json()) as { error: { message: string; field?: string } };
    expect(body.error.field).toBe("agentLabel");
    expect(body.error.message).toContain(`no agent labelled gone is online (last seen ${lastSeen})`);
    expect(body.error.message).toContain("queueWithoutAgent");
    // The CLI prints it and exits non-zero; nothing was stored.
    const out = await cli(["run", "s", "--project", a.project.id, "--target", "private", "--wait"], {
      BENCHBOARD_TOKEN: a.apiToken,
    });
    expect(out.code).not.toBe(0);
    expect(out.stderr).toContain("no agent labelled never is online");
    expect(out.stderr).toContain("--queue");
    expect(await t.db.run.count({ where: { orgId: a.org.id } })).toBe(0);
  }, 60_000);

  it("a run queued on request gives up after the worker's bound, naming the label, and frees its slot", async () => {
    const b = await tenant("queued");
    const gone = await agentThatLeaves(b.org.id, b.agentToken, "gone-2", "gone");
    const launched = await b.caller.run.launch({
      targetId: b.plain.id,
      scenarioId: b.scenario.id,
      agentLabel: "gone",
      queueWithoutAgent: true,
    });
    const queued = await b.caller.run.byId({ id: launched.id });
    expect(queued.status).toBe("queued");
    expect(queued.waitingFor).toEqual({
      agentLabel: "gone",
      agentsOnline: 0,
      lastSeenAt: (gone.stoppedAt ?? gone.lastSeenAt).toISOString(),
      message: `waiting for an agent labelled gone (none online since ${isoSeconds(gone.stoppedAt ?? gone.lastSeenAt)})`,
    });
    // It holds the organization's one slot while it waits.
    await expect(
      b.caller.run.launch({
        targetId: b.plain.id,
        scenarioId: b.scenario.id,
        agentLabel: "gone",
        queueWithoutAgent: true,
      }),
    ).rejects.toThrow(/maxConcurrentRuns: 1 run is already queued or running/);
    const ended = await waitFor(
      async () => {
        const run = await t.db.run.findUniqueOrThrow({ where: { id: launched.id } });
        return run.status === "queued" ? null : run;
      },
      (GIVE_UP_S + 15) * 1000,
      "the waiting run to give up",
    );
    expect(ended.status).toBe("failed");
    expect(ended.error).toMatch(/no agent labelled gone took the run within 0\.2 min \(none online since /);
    expect(ended.endedAt!.getTime() - ended.dispatchedAt!.getTime()).toBeGreaterThanOrEqual(GIVE_UP_S * 1000);
    // The slot is free again.
    const next = await b.caller.run.launch({
      targetId: b.plain.id,
      scenarioId: b.scenario.id,
      agentLabel: "gone",
      queueWithoutAgent: true,
    });
    expect((await b.caller.run.byId({ id: next.id })).status).toBe("queued");
    await b.caller.run.cancel({ id: next.id });
  }, 60_000);

  it("run --wait --queue says which agents it waits for, instead of waiting silently", async () => {
    const c = await tenant("cli");
    const gone = await agentThatLeaves(c.org.id, c.agentToken, "gone-3", "gone");
    const out = await cli(
      [
        "run",
        "s",
        "--project",
        c.project.id,
        "--target",
        "api",
        "--agent-label",
        "gone",
        "--queue",
        "--wait",
        "--timeout",
        "3",
      ],
      { BENCHBOARD_TOKEN: c.apiToken },
    );
    expect(out.stderr).toContain(
      `waiting for an agent labelled gone (none online since ${isoSeconds(gone.stoppedAt ?? gone.lastSeenAt)})`,
    );
    // The CLI's own timeout ends the wait; the run goes on on the server.
    expect(out.code).not.toBe(0);
    expect(out.stderr).toContain("is still queued after 3 s");
    const run = await t.db.run.findFirstOrThrow({ where: { orgId: c.org.id } });
    expect(run.status).toBe("queued");
    await c.caller.run.cancel({ id: run.id });
  }, 60_000);

  it("a run waiting behind a busy agent says how many of the label's agents are online", async () => {
    const d = await tenant("busy", 2);
    const child = spawn(
      process.execPath,
      [CLI, "agent", "--url", rest.url, "--name", "busy-1", "--label", "busy", "--capacity", "1", "--poll-s", "2"],
      {
        env: { PATH: process.env.PATH ?? "", BENCHBOARD_AGENT_TOKEN: d.agentToken },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    child.stdout?.on("data", (x) => logs.push(`[busy-1] ${x}`));
    child.stderr?.on("data", (x) => logs.push(`[busy-1] ${x}`));
    children.push(child);
    await waitFor(
      async () => logs.some((l) => l.startsWith("[busy-1] ") && l.includes("connected to")),
      30_000,
      "agent busy-1 to announce",
    );
    const long = await d.caller.scenario.create({
      projectId: d.project.id,
      name: "long",
      spec: { engine: "http-open", rate: 5, durationS: 4 } as never,
    });
    const first = await d.caller.run.launch({ targetId: d.plain.id, scenarioId: long.id, agentLabel: "busy" });
    await waitFor(async () => (await d.caller.run.byId({ id: first.id })).status === "running", 20_000, "first run");
    const second = await d.caller.run.launch({ targetId: d.plain.id, scenarioId: d.scenario.id, agentLabel: "busy" });
    const waiting = await d.caller.run.byId({ id: second.id });
    expect(waiting.status).toBe("queued");
    expect(waiting.waitingFor?.message).toBe("waiting for an agent labelled busy (1 online)");
    // The agent takes it once free; a running run waits for nothing.
    const ended = await waitFor(
      async () => {
        const run = await d.caller.run.byId({ id: second.id });
        return ["succeeded", "failed", "canceled"].includes(run.status) ? run : null;
      },
      30_000,
      "the second run to end",
    );
    expect(ended.status, ended.error ?? "").toBe("succeeded");
    expect(ended.waitingFor).toBeNull();
    child.kill("SIGTERM");
    expect(await exited(child)).toBe(0);
  }, 60_000);
});
