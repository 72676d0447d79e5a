import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { createCaller } from "@benchboard/api";
import { createAgentToken, ensureLocalOrganization, type LifecycleDeps, startRunWatchdog } from "@benchboard/db";
import type { TestDatabase } from "@benchboard/db/testing";
import { createDispatch, DEFAULT_REDIS_URL } from "@benchboard/jobs";
import { mergeShardResults } from "@benchboard/loadgen";
import { startChatServer } from "@benchboard/loadgen/test/chat-server";
import type { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentStack, startAgentStack } from "../test/agent-stack";
import { exited, isEnded, workerProcesses } from "../test/worker-processes";

// A load generator frozen mid-run (SIGSTOP: as a laptop asleep, or a host too busy to schedule
// it) and resumed (SIGCONT), as real processes: an agent (the CLI) and an install worker, each
// sending to a capture server on 127.0.0.1 that logs when every request arrived. After the
// resume the overdue schedule is never fired at once (what reaches the target in any second
// stays within the organization's rate cap), and nothing at all is sent for a run that ended
// while the generator was frozen.

const CLI = fileURLToPath(new URL("../../../apps/cli/bin/benchboard.js", import.meta.url));
const redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
const prefix = `bbstall-${randomBytes(4).toString("hex")}`;
/** The watchdog ends a run whose generator has been silent this long. */
const STALE_MS = 5_000;
/** The run's rate, and the organization's cap just above it. */
const RATE = 20;
const CAP = 25;
/** A freeze shorter than the watchdog's patience: the run is still running at the resume. */
const SHORT_FREEZE_MS = 3_000;

let stack: AgentStack | undefined;
let t: TestDatabase;
let queue: Queue;
let queueFor: AgentStack["queueFor"];
let rest: AgentStack["rest"];
let stopWatchdog: () => void;
const workers = workerProcesses();
const { logs, waitFor } = workers;
const agents: ChildProcess[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The capture server: answers in 20 ms and logs each request's arrival, per path. */
const capture = { server: null as http.Server | null, url: "", arrivals: new Map<string, number[]>() };
const arrivalsAt = (path: string) => capture.arrivals.get(path) ?? [];
const logArrival = (path: string) => {
  const list = capture.arrivals.get(path) ?? [];
  list.push(Date.now());
  capture.arrivals.set(path, list);
};
/** Chat servers (one per organization), logging each published message's arrival as `chat:<path>`. */
const chats: Awaited<ReturnType<typeof startChatServer>>[] = [];

beforeAll(async () => {
  const server = http.createServer((req, res) => {
    logArrival((req.url ?? "/").split("?")[0]!);
    setTimeout(() => res.end("ok"), 20);
  });
  server.keepAliveTimeout = 2_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  capture.server = server;
  capture.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  stack = await startAgentStack(redisUrl, prefix);
  ({ t, queue, queueFor, rest } = stack);
  // The web app's watchdog: ends runs whose generator stopped heartbeating.
  const lifecycle: LifecycleDeps = { dispatch: createDispatch(queueFor), mergeShards: mergeShardResults };
  stopWatchdog = startRunWatchdog(t.db, { ...lifecycle, staleAfterMs: STALE_MS, everyMs: 500 });
}, 60_000);

afterAll(async () => {
  for (const a of agents) if (a.exitCode === null && a.signalCode === null) a.kill("SIGKILL");
  await Promise.all(agents.map(exited));
  await workers.stopAll();
  stopWatchdog?.();
  await stack?.close();
  capture.server?.closeAllConnections();
  capture.server?.close();
  await Promise.all(chats.map((c) => c.close()));
});

/** The most arrivals in any `windowMs` from `from` on. */
function busiest(arrivals: number[], from: number, windowMs: number): number {
  const after = arrivals.filter((a) => a >= from).sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < after.length; i++) {
    while (after[i]! - after[j]! >= windowMs) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

/** An organization capped at `CAP` req/s, with a project and a target sending to `path`. */
async function organization(kind: "tenant" | "install", path: string) {
  const org =
    kind === "install"
      ? await ensureLocalOrganization(t.db)
      : await t.db.organization.create({
          data: { name: "Tenant stall", slug: `tenant-stall-${randomBytes(3).toString("hex")}` },
        });
  await t.db.organization.update({ where: { id: org.id }, data: { caps: { maxRate: CAP } } });
  const caller = createCaller({
    db: t.db,
    queue,
    queueFor,
    orgId: org.id,
    userId: null,
    role: "owner",
    secretKey: randomBytes(32),
  });
  const project = await caller.project.create({ name: `p-${randomBytes(3).toString("hex")}` });
  const target = await caller.target.create({
    projectId: project.id,
    name: path.slice(1),
    kind: "http",
    baseUrl: capture.url,
    ...(kind === "tenant" ? { agentLabel: "lab" } : {}),
  } as never);
  const chat = await startChatServer({ onPublish: () => logArrival(`chat:${path}`) });
  chats.push(chat);
  const chatTarget = await caller.target.create({
    projectId: project.id,
    name: `chat-${path.slice(1)}`,
    kind: "http",
    baseUrl: chat.url,
    ...(kind === "tenant" ? { agentLabel: "lab" } : {}),
  } as never);
  const launchSpec = async (spec: Record<string, unknown>, on: "http" | "chat" = "http") => {
    const scenario = await caller.scenario.create({
      projectId: project.id,
      name: `s-${randomBytes(3).toString("hex")}`,
      spec: spec as never,
    });
    return caller.run.launch({ targetId: (on === "chat" ? chatTarget : target).id, scenarioId: scenario.id });
  };
  const launch = (durationS: number) => launchSpec({ engine: "http-open", rate: RATE, durationS, request: { path } });
  /** The organization's rate cap (the closed and chat engines are held to it, not paced by it). */
  const capAt = (maxRate: number) =>
    t.db.organization.update({ where: { id: org.id }, data: { caps: { maxRate } } }).then(() => undefined);
  return { org, caller, launch, launchSpec, capAt };
}

/**
 * The engines without a schedule of their own, at a rate well under a high cap (so what limits
 * them after a resume is the stall discipline alone): closed-loop users, and chat senders.
 */
const CLOSED_SPEC = (path: string) => ({ engine: "http-closed", concurrency: 4, durationS: 30, request: { path } });
const CHAT_SPEC = {
  engine: "ws-chat",
  path: "/ws",
  users: 4,
  rooms: 1,
  messagesPerUser: 10_000,
  endsAfter: "duration",
  durationS: 30,
  messageIntervalMs: 20,
};
const HIGH_CAP = 1_000;

/**
 * The closed and chat engines frozen until the watchdog ended their run: after the resume the
 * target sees nothing sent after it (at most what was on its way at the freeze).
 */
async function unpacedFreezePastTheEnd(
  org: Awaited<ReturnType<typeof organization>>,
  freeze: () => void,
  resume: () => void,
  path: string,
) {
  await org.capAt(HIGH_CAP);
  try {
    const closed = await org.launchSpec(CLOSED_SPEC(`${path}-closed`));
    await freezePastTheEnd(freeze, resume, closed.id, `${path}-closed`);
    const chat = await org.launchSpec(CHAT_SPEC, "chat");
    await freezePastTheEnd(freeze, resume, chat.id, `chat:${path}`);
    return { closed, chat };
  } finally {
    await org.capAt(CAP);
  }
}

const runRow = (id: string) => t.db.run.findUniqueOrThrow({ where: { id } });

/** Until the run is running and its measured load has reached the target for a while. */
async function loadFlowing(runId: string, path: string) {
  await waitFor(async () => (await runRow(runId)).status === "running" || null, 30_000, `run ${runId} to start`);
  const from = arrivalsAt(path).length;
  // The engine's 1 s warm-up, then 2 s of load at the full rate.
  await waitFor(async () => arrivalsAt(path).length - from >= 50 || null, 20_000, `load on ${path}`);
}

async function stallRecord(runId: string) {
  const stored = await t.db.runResult.findUniqueOrThrow({ where: { runId } });
  const metrics = stored.metrics as Record<string, number>;
  const schedule = (stored.extra as { schedule?: { stalls?: { atS: number; gapMs: number; dropped: number }[] } })
    ?.schedule;
  return { metrics, stalls: schedule?.stalls ?? [], valid: stored.valid, reasons: stored.invalidReasons as string[] };
}

/**
 * Freeze a generator for `SHORT_FREEZE_MS` while its run goes on: no burst after the resume,
 * the run continues, and its result counts what was dropped and when.
 */
async function shortFreeze(freeze: () => void, resume: () => void, runId: string, path: string) {
  await loadFlowing(runId, path);
  freeze();
  const frozenAt = Date.now();
  await sleep(SHORT_FREEZE_MS);
  const resumedAt = Date.now();
  resume();
  const run = await workers.until(
    () => runRow(runId),
    (r) => isEnded(r.status),
    40_000,
    `run ${runId} to end`,
  );
  const arrivals = arrivalsAt(path);
  // Nothing arrived while frozen beyond what was on its way at the freeze.
  expect(arrivals.filter((a) => a > frozenAt + 200 && a < resumedAt).length).toBe(0);
  const afterResume = arrivals.filter((a) => a >= resumedAt).map((a) => a - resumedAt);
  const seen = `arrivals (ms after the resume): ${afterResume.join(" ")}`;
  // Today's engines fired the 3 s of overdue schedule (60 requests) at once. The capture server
  // shares its process with the test, whose own pauses can bunch arrivals it timestamps: so the
  // cap is checked over the first second after the resume and over any two seconds.
  expect(afterResume.filter((a) => a < 1_000).length, seen).toBeLessThanOrEqual(CAP);
  expect(busiest(arrivals, resumedAt, 2_000), seen).toBeLessThanOrEqual(2 * CAP);
  // The run confirmed it was still running and went on sending.
  expect(arrivals.filter((a) => a > resumedAt + 1_000).length).toBeGreaterThan(RATE);
  expect(run.status, run.error ?? "").toBe("succeeded");
  const { metrics, stalls, valid, reasons } = await stallRecord(runId);
  // Most of the frozen seconds' sends were dropped, not sent late: counted, with when.
  expect(metrics.stall_dropped).toBeGreaterThanOrEqual(RATE * 2);
  expect(metrics.stall_dropped).toBeLessThanOrEqual(RATE * (SHORT_FREEZE_MS / 1000 + 1));
  expect(stalls.length).toBeGreaterThanOrEqual(1);
  expect(Math.max(...stalls.map((s) => s.gapMs))).toBeGreaterThanOrEqual(SHORT_FREEZE_MS - 500);
  expect(stalls.reduce((sum, s) => sum + s.dropped, 0)).toBe(metrics.stall_dropped);
  // The generator's distortion: the run is invalid and says so first.
  expect(valid).toBe(false);
  expect(reasons[0]).toMatch(/the load generator stalled/);
}

/**
 * Freeze a generator until the watchdog has ended its run, then resume it: nothing reaches the
 * target after the resume.
 */
async function freezePastTheEnd(freeze: () => void, resume: () => void, runId: string, path: string) {
  await loadFlowing(runId, path);
  freeze();
  const ended = await workers.until(
    () => runRow(runId),
    (r) => isEnded(r.status),
    STALE_MS + 10_000,
    `the watchdog to end run ${runId}`,
  );
  expect(ended.status).toBe("failed");
  await sleep(1_000);
  const resumedAt = Date.now();
  resume();
  await sleep(3_000);
  // Today's engines fired the whole overdue schedule (~140 requests) at once here. What may still
  // arrive is a request dispatched before the freeze that was waiting for its connection (its
  // bytes leave once the process runs again): a request or two, at the resume; nothing sent after.
  const after = arrivalsAt(path).filter((a) => a >= resumedAt);
  expect(after.length).toBeLessThanOrEqual(2);
  expect(after.filter((a) => a > resumedAt + 300)).toEqual([]);
}

describe("stall discipline: an agent frozen mid-run", () => {
  let tenant: Awaited<ReturnType<typeof organization>>;
  let agent: ChildProcess;

  beforeAll(async () => {
    tenant = await organization("tenant", "/agent");
    const { token } = await createAgentToken(t.db, tenant.org.id, { name: "stall", createdById: null });
    agent = spawn(
      process.execPath,
      [CLI, "agent", "--url", rest.url, "--name", "frozen", "--label", "lab", "--poll-s", "2"],
      { env: { PATH: process.env.PATH ?? "", BENCHBOARD_AGENT_TOKEN: token }, stdio: ["ignore", "pipe", "pipe"] },
    );
    agent.stdout?.on("data", (d) => logs.push(`[agent] ${d}`));
    agent.stderr?.on("data", (d) => logs.push(`[agent] ${d}`));
    agents.push(agent);
    await waitFor(
      async () => (await t.db.agent.findFirst({ where: { orgId: tenant.org.id, name: "frozen" } })) !== null,
      30_000,
      "the agent to announce",
    );
  }, 60_000);

  it("after a short freeze the agent confirms the run and goes on, without a burst; the result counts the dropped sends", async () => {
    const launched = await tenant.launch(12);
    await shortFreeze(
      () => agent.kill("SIGSTOP"),
      () => agent.kill("SIGCONT"),
      launched.id,
      "/agent",
    );
  }, 90_000);

  it("after a freeze the watchdog ended the run in, the agent sends nothing more and takes the next run", async () => {
    const launched = await tenant.launch(20);
    const path = "/agent";
    await freezePastTheEnd(
      () => agent.kill("SIGSTOP"),
      () => agent.kill("SIGCONT"),
      launched.id,
      path,
    );
    expect(logs.join("")).toMatch(new RegExp(`run ${launched.id}: .*(no longer running|canceled on the server)`));
    // The agent is still serving its organization.
    const next = await tenant.launch(2);
    const run = await workers.until(
      () => runRow(next.id),
      (r) => isEnded(r.status),
      30_000,
      "the next run to end",
    );
    expect(run.status, run.error ?? "").toBe("succeeded");
  }, 90_000);

  it("the closed-model and chat engines too: after a freeze the watchdog ended the run in, nothing more is sent", async () => {
    const { closed, chat } = await unpacedFreezePastTheEnd(
      tenant,
      () => agent.kill("SIGSTOP"),
      () => agent.kill("SIGCONT"),
      "/agent",
    );
    for (const id of [closed.id, chat.id]) {
      expect(logs.join("")).toMatch(new RegExp(`run ${id}: .*(no longer running|canceled on the server)`));
    }
  }, 120_000);
});

describe("stall discipline: an install worker frozen mid-run", () => {
  let install: Awaited<ReturnType<typeof organization>>;
  const id = `w-${prefix}`;

  beforeAll(async () => {
    install = await organization("install", "/worker");
    workers.start(id, { DATABASE_URL: t.url, REDIS_URL: redisUrl, BENCHBOARD_QUEUE_PREFIX: prefix });
    await workers.announced(t.db, id);
  }, 60_000);

  it("after a short freeze the worker confirms the run and goes on, without a burst; the result counts the dropped sends", async () => {
    const launched = await install.launch(12);
    const child = workers.get(id)!;
    await shortFreeze(
      () => child.kill("SIGSTOP"),
      () => child.kill("SIGCONT"),
      launched.id,
      "/worker",
    );
  }, 90_000);

  it("after a freeze the watchdog ended the run in, the worker sends nothing more", async () => {
    const launched = await install.launch(20);
    const child = workers.get(id)!;
    await freezePastTheEnd(
      () => child.kill("SIGSTOP"),
      () => child.kill("SIGCONT"),
      launched.id,
      "/worker",
    );
  }, 90_000);

  it("the closed-model and chat engines too: after a freeze the watchdog ended the run in, nothing more is sent", async () => {
    const child = workers.get(id)!;
    const { closed, chat } = await unpacedFreezePastTheEnd(
      install,
      () => child.kill("SIGSTOP"),
      () => child.kill("SIGCONT"),
      "/worker",
    );
    for (const run of [closed, chat]) {
      expect(logs.join("")).toMatch(new RegExp(`run ${run.id}: .*the worker stalled`));
    }
  }, 120_000);
});
