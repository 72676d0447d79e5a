import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createCaller } from "@benchboard/api";
import { MAX_AGENT_SERIES_POINTS } from "@benchboard/core/importers/agent-body";
import { parsePool } from "@benchboard/core/importers/parse-pool";
import { createAgentToken } from "@benchboard/db";
import type { TestDatabase } from "@benchboard/db/testing";
import { DEFAULT_REDIS_URL } from "@benchboard/jobs";
import type { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentStack, startAgentStack } from "../test/agent-stack";

// What an agent reports a result in (checkpoints, the end of a run), posted to the real REST
// routes over HTTP: series longer than a run can make are refused naming the field and the
// limit, a large valid checkpoint is stored whole, and its body is read on the parse pool (in
// the organization's share), not on the thread that answers requests.

const redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
const prefix = `bbbodies-${randomBytes(4).toString("hex")}`;

let stack: AgentStack | undefined;
let t: TestDatabase;
let queue: Queue;
let queueFor: AgentStack["queueFor"];
let rest: AgentStack["rest"];
let targetServer: http.Server;
let targetUrl = "";

beforeAll(async () => {
  targetServer = http.createServer((_req, res) => res.end("ok"));
  await new Promise<void>((resolve) => targetServer.listen(0, "127.0.0.1", resolve));
  targetUrl = `http://127.0.0.1:${(targetServer.address() as AddressInfo).port}`;
  stack = await startAgentStack(redisUrl, prefix);
  ({ t, queue, queueFor, rest } = stack);
}, 60_000);

afterAll(async () => {
  await stack?.close();
  targetServer?.close();
});

async function post(path: string, token: string, body: unknown) {
  const res = await fetch(`${rest.url}/api/v1${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const parsed = res.status === 204 ? null : ((await res.json()) as { error?: { message?: string; field?: string } });
  return { status: res.status, body: parsed };
}

/** A tenant with an agent that claimed one running run of 1 s at 10 req/s. */
async function claimedRun(label: string) {
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
  const target = await caller.target.create({
    projectId: project.id,
    name: "t",
    kind: "http",
    baseUrl: targetUrl,
    agentLabel: "lab",
  } as never);
  const scenario = await caller.scenario.create({
    projectId: project.id,
    name: "s",
    spec: { engine: "http-open", rate: 10, durationS: 1 } as never,
  });
  const announced = await post("/agent/announce", token, { name: `a-${label}`, labels: ["lab"] });
  expect(announced.status, JSON.stringify(announced.body)).toBe(200);
  const agentId = (announced.body as unknown as { agent: { id: string } }).agent.id;
  const run = await caller.run.launch({ targetId: target.id, scenarioId: scenario.id });
  const claimed = await post("/agent/claim", token, { agentId, waitS: 5 });
  expect(claimed.status, JSON.stringify(claimed.body)).toBe(200);
  return { org, token, agentId, runId: run.id };
}

/** Samples with the full precision engines report (latencies in ms are rarely round). */
const sample = (i: number) => ((i * 7_919) % 100_000) / 7;

/** An engine's result whose every series has `points` one-second samples from `start`. */
function engineResult(start: number, series: number, points: number) {
  const values = Array.from({ length: points }, (_, i) => sample(i));
  return {
    metrics: { requests: points, rps: 10 },
    series: Object.fromEntries(
      Array.from({ length: series }, (_, k) => [`m${k}`, { start, intervalMs: 1000, values }]),
    ),
    startedAt: start,
    endedAt: start + points * 1000,
  };
}

describe("agent result bodies: bounded to what a run makes, read off the request thread", () => {
  it("refuses a checkpoint or result whose series is longer than a run can make, naming the field and the limit", async () => {
    const { token, agentId, runId } = await claimedRun("over");
    const start = Date.now();
    const limit = MAX_AGENT_SERIES_POINTS.toLocaleString("en-US");
    const over = engineResult(start, 1, MAX_AGENT_SERIES_POINTS + 1);

    const checkpoint = await post(`/agent/runs/${runId}/checkpoint`, token, { agentId, result: over });
    expect(checkpoint.status).toBe(400);
    expect(checkpoint.body?.error?.field).toBe("result.series.m0.values");
    expect(checkpoint.body?.error?.message).toContain(`at most ${limit}`);

    const histograms = {
      ...engineResult(start, 1, 10),
      intervalHistograms: { start, intervalMs: 1000, values: Array(MAX_AGENT_SERIES_POINTS + 1).fill(null) },
    };
    const intervals = await post(`/agent/runs/${runId}/checkpoint`, token, { agentId, result: histograms });
    expect(intervals.status).toBe(400);
    expect(intervals.body?.error?.field).toBe("result.intervalHistograms.values");

    const result = await post(`/agent/runs/${runId}/result`, token, { agentId, status: "succeeded", result: over });
    expect(result.status).toBe(400);
    expect(result.body?.error?.field).toBe("result.series.m0.values");
    expect(result.body?.error?.message).toContain(`at most ${limit}`);

    // Every record of a result is bounded on the route too, e.g. 200,000 metric keys.
    const keys = Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`custom.k${i}`, i]));
    const manyKeys = await post(`/agent/runs/${runId}/result`, token, {
      agentId,
      status: "succeeded",
      result: { metrics: keys, startedAt: start, endedAt: start + 1000 },
    });
    expect(manyKeys.status).toBe(400);
    expect(manyKeys.body?.error?.field).toBe("result.metrics");
    expect(manyKeys.body?.error?.message).toContain("at most 5,000");

    // Nothing of it was stored, and the run still runs: the refusal changed nothing.
    const stored = await t.db.run.findUniqueOrThrow({ where: { id: runId } });
    expect(stored.status).toBe("running");
    expect(await t.db.series.count({ where: { runId } })).toBe(0);
    expect(await t.db.runMetric.count({ where: { runId } })).toBe(0);

    // Over the body limit: refused by its size before anything is read.
    const huge = `{"agentId":"${agentId}","pad":"${"x".repeat(10_000_001)}"}`;
    const tooLarge = await post(`/agent/runs/${runId}/checkpoint`, token, huge);
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body?.error?.message).toContain("10 MB");

    // A result at the bound ends the run.
    const fits = await post(`/agent/runs/${runId}/result`, token, {
      agentId,
      status: "succeeded",
      result: engineResult(start, 1, MAX_AGENT_SERIES_POINTS),
    });
    expect(fits).toEqual({ status: 200, body: { ended: true } });
  }, 60_000);

  it("stores a large valid checkpoint whole, read on the parse pool in the organization's share", async () => {
    const { org, token, agentId, runId } = await claimedRun("large");
    // What the longest run can make: 100 series (the schema's most) of 3,900 points, ~6.4 MB.
    const start = Date.now();
    const result = engineResult(start, 100, MAX_AGENT_SERIES_POINTS);
    const text = JSON.stringify({ agentId, result });
    expect(text.length).toBeGreaterThan(6_000_000);

    // While the body is read, the pool holds its bytes for the organization; a body parsed on
    // the request thread would never show there.
    let heldOnPool = 0;
    const pending = post(`/agent/runs/${runId}/checkpoint`, token, text);
    let done = false;
    void pending.finally(() => {
      done = true;
    });
    while (!done) {
      heldOnPool = Math.max(heldOnPool, parsePool().usage(org.id).bytes);
      await new Promise((r) => setImmediate(r));
    }
    const res = await pending;
    expect(res).toEqual({ status: 200, body: { cancel: false } });
    expect(heldOnPool).toBe(text.length);
    expect(parsePool().usage(org.id).bytes).toBe(0);

    const series = await t.db.series.findMany({
      where: { runId },
      select: { metric: true, start: true, intervalMs: true, values: true, rollup: true },
    });
    expect(series.map((s) => s.metric).sort()).toEqual(Object.keys(result.series).sort());
    const expected = Array.from({ length: MAX_AGENT_SERIES_POINTS }, (_, i) => sample(i));
    for (const s of series) {
      expect(s.values).toEqual(expected);
      expect(s.start.getTime()).toBe(start);
      expect(s.intervalMs).toBe(1000);
      // The long series' reduced copy is written with it, as for every other writer.
      expect(s.rollup?.length).toBeGreaterThan(0);
    }
    const stored = await t.db.runResult.findUniqueOrThrow({ where: { runId } });
    expect(stored.metrics).toEqual({ requests: MAX_AGENT_SERIES_POINTS, rps: 10 });
    await post(`/agent/runs/${runId}/result`, token, { agentId, status: "failed", error: "ended by the test" });
  }, 60_000);
});
