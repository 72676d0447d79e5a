import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createCaller } from "@benchboard/api";
import { ensureLocalOrganization } from "@benchboard/db";
import { allowLoopbackTargets, createTestDatabase, type TestDatabase } from "@benchboard/db/testing";
import { createRunsQueue, DEFAULT_REDIS_URL } from "@benchboard/jobs";
import type { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workerProcesses } from "../test/worker-processes";

// A real worker process with a secret key: secret header values reach the target server and
// nowhere else; repetitions run one after another, the worker queueing each next one.
const redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
const prefix = `bbtest-${randomBytes(4).toString("hex")}`;
const secretKey = randomBytes(32);
const SECRET = `Bearer sk-${randomBytes(12).toString("hex")}`;

let t: TestDatabase;
let queue: Queue;
let server: http.Server;
let serverUrl: string;
const received: { authorization?: string; plain?: string }[] = [];
let caller: ReturnType<typeof createCaller>;
/** The worker process, run as production runs it, on this file's database and queues. */
const workers = workerProcesses(() => ({ DATABASE_URL: t.url, REDIS_URL: redisUrl, BENCHBOARD_QUEUE_PREFIX: prefix }));
const WORKER_ID = `test-${prefix}`;
const { waitFor } = workers;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    received.push({ authorization: req.headers.authorization, plain: req.headers["x-plain"] as string | undefined });
    setTimeout(() => res.end("ok"), req.url?.startsWith("/slow") ? 100 : 2);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  serverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  t = await createTestDatabase();

  // Test servers listen on 127.0.0.1, which this install's operator allows as a target.
  await allowLoopbackTargets(t.db);
  queue = createRunsQueue(redisUrl, prefix);
  workers.start(WORKER_ID, {
    // Two slots: repetitions must still run one at a time.
    BENCHBOARD_WORKER_CONCURRENCY: "2",
    BENCHBOARD_SECRET_KEY: secretKey.toString("base64"),
  });
  await workers.announced(t.db, WORKER_ID);
  // The install's own organization: the operator trusts its origins, so no verification is needed.
  const org = await ensureLocalOrganization(t.db);
  caller = createCaller({ db: t.db, queue, orgId: org.id, userId: null, role: "member", secretKey });
});

afterAll(async () => {
  if (workers.get(WORKER_ID)) await workers.signal(WORKER_ID, "SIGTERM");
  await queue?.obliterate({ force: true }).catch(() => {});
  await queue?.close();
  await t?.drop();
  server?.close();
});

const ENDED = ["succeeded", "failed", "canceled"];

async function waitForRuns(ids: string[]) {
  await waitFor(
    async () => (await t.db.run.count({ where: { id: { in: ids }, status: { in: ENDED as never } } })) === ids.length,
    60_000,
    `runs ${ids.join(", ")} to end`,
  );
  return t.db.run.findMany({ where: { id: { in: ids } }, orderBy: { groupIndex: "asc" }, include: { result: true } });
}

async function setup(spec: object, headers: object[] = []) {
  const project = await caller.project.create({ name: `p-${randomBytes(3).toString("hex")}` });
  const target = await caller.target.create({
    projectId: project.id,
    name: "svc",
    kind: "http",
    baseUrl: serverUrl,
    headers: headers as never,
  });
  const scenario = await caller.scenario.create({ projectId: project.id, name: "s", spec: spec as never });
  return { project, target, scenario };
}

describe("secret headers", () => {
  it("reach the target server but no procedure output, snapshot or log", async () => {
    const { project, target, scenario } = await setup({ engine: "http-closed", concurrency: 2, requests: 40 }, [
      { name: "Authorization", value: SECRET, secret: true },
      { name: "X-Plain", value: "visible" },
    ]);
    const before = received.length;
    const launched = await caller.run.launch({ targetId: target.id, scenarioId: scenario.id });
    const [run] = await waitForRuns([launched.id]);
    expect(run?.status, run?.error ?? "").toBe("succeeded");
    const mine = received.slice(before);
    expect(mine).toHaveLength(40);
    expect(mine.every((r) => r.authorization === SECRET && r.plain === "visible")).toBe(true);

    expect(JSON.stringify(run?.targetSnapshot)).not.toContain(SECRET);
    expect((run?.targetSnapshot as { headers: unknown }).headers).toEqual([
      { name: "Authorization", secret: true },
      { name: "X-Plain", value: "visible" },
    ]);
    const outputs = [
      launched,
      await caller.run.byId({ id: launched.id }),
      await caller.run.list({ projectId: project.id }),
      await caller.target.byId({ id: target.id }),
      await caller.target.list({ projectId: project.id }),
    ];
    for (const out of outputs) expect(JSON.stringify(out)).not.toContain(SECRET.slice(7));
    expect(workers.logs.join("")).not.toContain(SECRET.slice(7));
  });

  it("fails a run whose secret can no longer be found, with the reason and without sending load", async () => {
    const { target, scenario } = await setup({ engine: "http-closed", concurrency: 1, requests: 5 }, [
      { name: "Authorization", value: SECRET, secret: true },
    ]);
    // Stored under another organization's binding: the worker cannot open it.
    await t.db.target.update({ where: { id: target.id }, data: { secrets: "v1.AAAA.AAAA.AAAA" } });
    const before = received.length;
    const launched = await caller.run.launch({ targetId: target.id, scenarioId: scenario.id });
    const [run] = await waitForRuns([launched.id]);
    expect(run?.status).toBe("failed");
    expect(run?.error).toMatch(/could not be decrypted/);
    expect(received.length).toBe(before);
  });
});

describe("repetitions", () => {
  it("run back to back: the worker queues each next run of the group when one ends", async () => {
    const { target, scenario } = await setup({
      engine: "http-closed",
      concurrency: 2,
      durationS: 1,
      request: { path: "/slow" },
    });
    const launched = await caller.run.launch({ targetId: target.id, scenarioId: scenario.id, repetitions: 3 });
    const runs = await waitForRuns(launched.groupRunIds);
    expect(runs.map((r) => [r.groupIndex, r.status])).toEqual([
      [0, "succeeded"],
      [1, "succeeded"],
      [2, "succeeded"],
    ]);
    for (let i = 1; i < runs.length; i++) {
      // Never overlapping, although the worker has two free slots.
      expect(runs[i]!.startedAt!.getTime()).toBeGreaterThanOrEqual(runs[i - 1]!.endedAt!.getTime());
    }
    expect(runs.every((r) => ((r.result?.metrics as Record<string, number>).requests ?? 0) > 0)).toBe(true);
  });

  it("skip a repetition canceled while it waited and go on with the rest", async () => {
    const { target, scenario } = await setup({
      engine: "http-closed",
      concurrency: 1,
      durationS: 1,
      request: { path: "/slow" },
    });
    const launched = await caller.run.launch({ targetId: target.id, scenarioId: scenario.id, repetitions: 3 });
    await caller.run.cancel({ id: launched.groupRunIds[1]! });
    const runs = await waitForRuns(launched.groupRunIds);
    expect(runs.map((r) => r.status)).toEqual(["succeeded", "canceled", "succeeded"]);
    expect(runs[1]?.startedAt).toBeNull();
  });
});
