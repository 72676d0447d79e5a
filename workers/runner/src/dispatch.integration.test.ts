import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { createCaller, createRedisRateLimiter, runLifecycleDeps } from "@benchboard/api";
import { createApiToken, ensureLocalOrganization, reapStaleRuns } from "@benchboard/db";
import { allowLoopbackTargets, createTestDatabase, type TestDatabase } from "@benchboard/db/testing";
import { createQueueFor, createRunsQueue, DEFAULT_REDIS_URL } from "@benchboard/jobs";
import type { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRestServer } from "../test/rest-server";
import { waitFor } from "../test/wait";
import { startRunner } from "./worker";

// One dispatch for every way a run starts: labelled launches through tRPC, REST, the CLI, a
// sweep and the watchdog (a stalled group's next run) each land on the label's queue, and the
// worker offering the label — not the unlabelled one beside it — takes them.

const CLI = fileURLToPath(new URL("../../../apps/cli/bin/benchboard.js", import.meta.url));
const redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
const prefix = `bbdispatch-${randomBytes(4).toString("hex")}`;

let t: TestDatabase;
let queue: Queue;
let redis: Redis;
let server: http.Server;
let url = "";
let rest: Awaited<ReturnType<typeof startRestServer>>;
const runners: Awaited<ReturnType<typeof startRunner>>[] = [];
const log: string[] = [];

beforeAll(async () => {
  server = http.createServer((_req, res) => setTimeout(() => res.end("ok"), 5));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t = await createTestDatabase();
  await allowLoopbackTargets(t.db);
  queue = createRunsQueue(redisUrl, prefix);
  redis = new Redis(redisUrl);
  // REST is served as the web app serves it before any label queue exists: only its default queue.
  rest = await startRestServer({ db: t.db, queue, rateLimit: createRedisRateLimiter(redis, `${prefix}:rl:`) });
  for (const [id, labels] of [
    ["plain", []],
    ["eu", ["eu"]],
  ] as const) {
    runners.push(
      await startRunner({
        databaseUrl: t.url,
        redisUrl,
        prefix,
        concurrency: 2,
        workerId: id,
        labels: [...labels],
        healthPort: 0,
        log: (line) => log.push(`[${id}] ${line}\n`),
      }),
    );
  }
});

afterAll(async () => {
  for (const r of runners) await r.close();
  await rest?.close();
  await queue?.obliterate({ force: true }).catch(() => {});
  await queue?.close();
  redis?.disconnect();
  await t?.drop();
  server?.close();
});

function cli(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve, reject) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { env: { PATH: process.env.PATH ?? "", ...env }, timeout: 60_000 },
      (err, stdout, stderr) => {
        if (err && typeof err.code !== "number") reject(err);
        else resolve({ code: typeof err?.code === "number" ? err.code : 0, stdout, stderr });
      },
    );
  });
}

async function endedOn(runId: string) {
  const run = await waitFor(
    async () => {
      const r = await t.db.run.findUniqueOrThrow({ where: { id: runId } });
      return r.status !== "queued" && r.status !== "running" ? r : null;
    },
    40_000,
    `run ${runId} to end`,
    () => log.join(""),
  );
  expect(run.status, run.error ?? "").toBe("succeeded");
  return run.workerIds;
}

describe("labelled launches through every entry point", () => {
  it("are taken by the worker offering the label, whichever way they started", async () => {
    const org = await ensureLocalOrganization(t.db);
    // The tRPC context as the web app builds it, and one with only its default queue.
    const queueFor = createQueueFor(redisUrl, prefix, queue);
    const caller = createCaller({ db: t.db, queue, queueFor, orgId: org.id, userId: null, role: "owner" });
    const bare = createCaller({ db: t.db, queue, orgId: org.id, userId: null, role: "owner" });
    const project = await caller.project.create({ name: "dispatch" });
    const target = await caller.target.create({ projectId: project.id, name: "svc", kind: "http", baseUrl: url });
    const scenario = await caller.scenario.create({
      projectId: project.id,
      name: "tiny",
      spec: { engine: "http-closed", concurrency: 1, requests: 5 } as never,
    });
    const launch = { targetId: target.id, scenarioId: scenario.id, workerLabel: "eu" };

    const viaTrpc = await caller.run.launch(launch);
    expect(await endedOn(viaTrpc.id)).toEqual(["eu"]);
    const viaBareContext = await bare.run.launch(launch);
    expect(await endedOn(viaBareContext.id)).toEqual(["eu"]);

    const { token } = await createApiToken(t.db, org.id, {
      name: "ci",
      scopes: ["runs:read", "runs:launch"],
      createdById: null,
    });
    const res = await fetch(`${rest.url}/api/v1/runs/launch`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ project: project.id, scenario: "tiny", target: "svc", workerLabel: "eu" }),
    });
    expect(res.status).toBe(201);
    const viaRest = ((await res.json()) as { run: { id: string } }).run.id;
    expect(await endedOn(viaRest)).toEqual(["eu"]);

    const viaCli = await cli(
      ["run", "tiny", "--project", project.id, "--target", "svc", "--worker-label", "eu", "--json"],
      { BENCHBOARD_URL: rest.url, BENCHBOARD_TOKEN: token },
    );
    expect(viaCli.code, viaCli.stderr).toBe(0);
    const cliRunId = (JSON.parse(viaCli.stdout) as { run: { id: string } }).run.id;
    expect(await endedOn(cliRunId)).toEqual(["eu"]);

    const sweep = await bare.sweep.create({
      name: "sw",
      targetId: target.id,
      scenarioId: scenario.id,
      parameter: "scenario.concurrency",
      values: [1, 2],
      workerLabel: "eu",
    } as never);
    for (const id of sweep.runIds) expect(await endedOn(id)).toEqual(["eu"]);

    // A group whose next run was never queued (its worker died in between): the watchdog of a
    // process that is not a worker queues it, on the label's queue.
    const group = await bare.run.launch({ ...launch, repetitions: 2 });
    expect(await endedOn(group.groupRunIds[0]!)).toEqual(["eu"]);
    const second = group.groupRunIds[1]!;
    expect(await endedOn(second)).toEqual(["eu"]);
    const stalled = await caller.run.launch({ ...launch, repetitions: 2 });
    await endedOn(stalled.groupRunIds[0]!);
    await endedOn(stalled.groupRunIds[1]!);
    const orphan = await t.db.run.create({
      data: {
        orgId: org.id,
        projectId: project.id,
        number: 10_000,
        targetId: target.id,
        scenarioId: scenario.id,
        groupId: stalled.groupRunIds[0]!,
        groupIndex: 2,
        status: "queued",
        targetSnapshot: (await t.db.run.findUniqueOrThrow({ where: { id: second } })).targetSnapshot!,
        scenarioSnapshot: (await t.db.run.findUniqueOrThrow({ where: { id: second } })).scenarioSnapshot!,
        workerLabel: "eu",
        queuedAt: new Date(Date.now() - 60_000),
      },
    });
    await t.db.run.updateMany({
      where: { id: { in: stalled.groupRunIds } },
      data: { endedAt: new Date(Date.now() - 60_000) },
    });
    const watchdogQueues = createQueueFor(redisUrl, prefix);
    try {
      const reaped = await reapStaleRuns(t.db, { ...runLifecycleDeps(watchdogQueues), staleAfterMs: 20_000 });
      expect(reaped.continued).toEqual([orphan.id]);
      expect(await endedOn(orphan.id)).toEqual(["eu"]);
    } finally {
      await watchdogQueues.closeAll();
    }
    // Nothing labelled ever reached the unlabelled worker.
    expect(await t.db.run.count({ where: { workerIds: { has: "plain" } } })).toBe(0);
  }, 180_000);
});
