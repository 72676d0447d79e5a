import { randomBytes } from "node:crypto";
import {
  createAgentToken,
  createApiToken,
  createProject,
  ensureLocalOrganization,
  revokeAgentToken,
} from "@benchboard/db";
import { createTestDatabase, type TestDatabase } from "@benchboard/db/testing";
import { createRunsQueue, DEFAULT_REDIS_URL } from "@benchboard/jobs";
import type { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedisRateLimiter } from "../rate-limit";
import { agentQueueHandler } from "./agent-queue";
import type { RestDeps } from "./auth";

// The agents' queue per label, as an autoscaler reads it: waiting runs, waiting and running
// shards, for the token's organization only, against real PostgreSQL and Redis.
let t: TestDatabase;
let queue: Queue;
let redis: Redis;
let deps: RestDeps;
let agentToken = "";
let agentTokenId = "";
let apiToken = "";
let orgId = "";

beforeAll(async () => {
  t = await createTestDatabase();
  const prefix = `bbaq-${randomBytes(4).toString("hex")}`;
  queue = createRunsQueue(process.env.REDIS_URL ?? DEFAULT_REDIS_URL, prefix);
  redis = new Redis(process.env.REDIS_URL ?? DEFAULT_REDIS_URL, { maxRetriesPerRequest: 1 });
  deps = { db: t.db, queue, rateLimit: createRedisRateLimiter(redis, `${prefix}:`) };
  orgId = (await ensureLocalOrganization(t.db)).id;
  const agent = await createAgentToken(t.db, orgId, { name: "scaler", createdById: null });
  agentToken = agent.token;
  agentTokenId = agent.record.id;
  apiToken = (await createApiToken(t.db, orgId, { name: "ci", scopes: ["runs:read"], createdById: null })).token;
  const project = await createProject(t.db, orgId, { name: "Gateway" });
  const other = await t.db.organization.create({ data: { name: "Other", slug: `other-${prefix}` } });
  const otherProject = await createProject(t.db, other.id, { name: "Theirs" });

  let number = 0;
  const run = (data: {
    status: "queued" | "running" | "succeeded";
    agentLabel: string | null;
    shardCount?: number;
    dispatched?: boolean;
    org?: "other";
  }) =>
    t.db.run.create({
      data: {
        orgId: data.org ? other.id : orgId,
        projectId: data.org ? otherProject.id : project.id,
        number: ++number,
        status: data.status,
        agentLabel: data.agentLabel,
        shardCount: data.shardCount ?? 1,
        dispatchedAt: data.dispatched === false ? null : new Date(),
      },
    });
  // lab: one unsharded run waiting, a 3-shard run waiting (no shard rows yet), a 4-shard run with
  // one shard waiting, two running and one done, an unsharded run running.
  await run({ status: "queued", agentLabel: "lab" });
  await run({ status: "queued", agentLabel: "lab", shardCount: 3 });
  const sharded = await run({ status: "running", agentLabel: "lab", shardCount: 4 });
  await t.db.runShard.createMany({
    data: [
      { runId: sharded.id, index: 0, status: "running" },
      { runId: sharded.id, index: 1, status: "running" },
      { runId: sharded.id, index: 2, status: "queued" },
      { runId: sharded.id, index: 3, status: "succeeded" },
    ],
  });
  await run({ status: "running", agentLabel: "lab" });
  // Not agent work now: a repetition not put on the queue yet, an ended run, an install
  // worker's run, and another organization's run on the same label.
  await run({ status: "queued", agentLabel: "lab", dispatched: false });
  await run({ status: "succeeded", agentLabel: "lab", shardCount: 2 });
  await run({ status: "queued", agentLabel: null });
  await run({ status: "queued", agentLabel: "lab", shardCount: 5, org: "other" });
  // eu: one 2-shard run waiting.
  await run({ status: "queued", agentLabel: "eu", shardCount: 2 });
});

afterAll(async () => {
  await queue?.obliterate({ force: true }).catch(() => {});
  await queue?.close();
  redis?.disconnect();
  await t?.drop();
});

const get = async (query: string, token: string | null) => {
  const res = await agentQueueHandler(
    new Request(`http://127.0.0.1/api/v1/agent/queue${query}`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
    }),
    deps,
  );
  return res as { status: number; body: Record<string, unknown>; headers?: Record<string, string> };
};

describe("GET /api/v1/agent/queue", () => {
  it("counts each label's waiting runs and its waiting and running shards, for the token's organization", async () => {
    const res = await get("", agentToken);
    expect(res.status).toBe(200);
    expect(res.headers?.["cache-control"]).toBe("no-store");
    expect(res.body).toEqual({
      labels: [
        { label: "eu", waitingRuns: 1, waitingShards: 2, runningShards: 0, activeShards: 2 },
        { label: "lab", waitingRuns: 2, waitingShards: 5, runningShards: 3, activeShards: 8 },
      ],
    });
  });

  it("answers one label at the top level (where a metrics adapter reads it), with zeros for a label without work", async () => {
    const lab = await get("?label=lab", agentToken);
    expect(lab.status).toBe(200);
    expect(lab.body).toEqual({ label: "lab", waitingRuns: 2, waitingShards: 5, runningShards: 3, activeShards: 8 });
    const idle = await get("?label=nobody", agentToken);
    expect(idle.body).toEqual({ label: "nobody", waitingRuns: 0, waitingShards: 0, runningShards: 0, activeShards: 0 });
    const empty = await get("?label=", agentToken);
    expect(empty.status).toBe(400);
    expect(empty.body).toMatchObject({ error: { field: "label" } });
  });

  it("follows a 10-shard run from queued to ended: the agents an autoscaler keeps at capacity 1", async () => {
    const project = await t.db.project.findFirstOrThrow({ where: { orgId } });
    const run = await t.db.run.create({
      data: {
        orgId,
        projectId: project.id,
        number: 100,
        status: "queued",
        agentLabel: "k8s",
        shardCount: 10,
        dispatchedAt: new Date(),
      },
    });
    const activeShards = async () => (await get("?label=k8s", agentToken)).body.activeShards;
    // Queued, before its shard rows exist: ten agents wanted.
    expect(await activeShards()).toBe(10);
    await t.db.runShard.createMany({ data: Array.from({ length: 10 }, (_, index) => ({ runId: run.id, index })) });
    expect(await activeShards()).toBe(10);
    // Agents took six shards and finished four: the busy ones are still wanted.
    await t.db.run.update({ where: { id: run.id }, data: { status: "running" } });
    await t.db.runShard.updateMany({ where: { runId: run.id, index: { lt: 4 } }, data: { status: "succeeded" } });
    await t.db.runShard.updateMany({ where: { runId: run.id, index: { gte: 4 } }, data: { status: "running" } });
    expect((await get("?label=k8s", agentToken)).body).toEqual({
      label: "k8s",
      waitingRuns: 0,
      waitingShards: 0,
      runningShards: 6,
      activeShards: 6,
    });
    // Ended: none.
    await t.db.runShard.updateMany({ where: { runId: run.id }, data: { status: "succeeded" } });
    await t.db.run.update({ where: { id: run.id }, data: { status: "succeeded" } });
    expect(await activeShards()).toBe(0);
  });

  it("refuses no token, an API token and a revoked agent token, without counts", async () => {
    for (const token of [null, apiToken, "bba_not-a-token"]) {
      const res = await get("", token);
      expect(res.status, String(token)).toBe(401);
      expect(res.headers?.["www-authenticate"]).toMatch(/^Bearer/);
      expect(JSON.stringify(res.body)).not.toContain("waiting");
    }
    await revokeAgentToken(t.db, orgId, agentTokenId);
    expect((await get("?label=lab", agentToken)).status).toBe(401);
  });
});
