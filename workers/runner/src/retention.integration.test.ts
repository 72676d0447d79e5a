import { randomBytes } from "node:crypto";
import { setRunPinned } from "@benchboard/db";
import { createTestDatabase, readRunDetail, type TestDatabase } from "@benchboard/db/testing";
import { DEFAULT_REDIS_URL } from "@benchboard/jobs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor as waitForIn } from "../test/wait";
import { readEnv, runnerOptionsFromEnv } from "./env";
import { startRunner } from "./worker";

// Retention as an operator turns it on: a worker started with BENCHBOARD_RETAIN_DETAIL_DAYS
// (real Redis and PostgreSQL) runs a pass soon after it starts and again on its schedule; each
// pass trims old runs and never a run that a comparison, its baseline, a share link or a pin
// refers to, nor a recent one.
const day = 86_400_000;
const perSecond = Array.from({ length: 60 }, (_, i) => 100 + i);
const p99 = Array.from({ length: 60 }, (_, i) => (i === 33 ? 900 : 10 + (i % 10)));

let t: TestDatabase;
let orgId: string;
let projectId: string;
let runner: Awaited<ReturnType<typeof startRunner>> | null = null;
const logs: string[] = [];
const ids: Record<string, string> = {};
let number = 0;

const waitFor = <T>(check: () => Promise<T | false | null | undefined>, timeoutMs: number, what: string) =>
  waitForIn(check, timeoutMs, what, () => logs.join("\n"));

async function storedRun(name: string, endedDaysAgo: number) {
  const endedAt = new Date(Date.now() - endedDaysAgo * day);
  const run = await t.db.run.create({
    data: { orgId, projectId, number: ++number, status: "succeeded", startedAt: endedAt, endedAt, shardCount: 1 },
  });
  await t.db.runResult.create({ data: { runId: run.id, metrics: { rps: 130 }, histogram: "HISTmerged" } });
  await t.db.series.createMany({
    data: [
      { runId: run.id, metric: "rps", start: endedAt, intervalMs: 1000, values: perSecond },
      { runId: run.id, metric: "latency_p99", start: endedAt, intervalMs: 1000, values: p99 },
    ],
  });
  await t.db.runShard.create({
    data: {
      runId: run.id,
      index: 0,
      status: "succeeded",
      result: { histogram: "HISTshard", intervalHistograms: { intervalMs: 1000, histograms: ["a", "b"] } },
    },
  });
  ids[name] = run.id;
  return run.id;
}

const detail = (name: string) => readRunDetail(t.db, ids[name]!);

const trimmed = async (name: string) => (await detail(name)).result.detailTrimmedAt !== null;

beforeAll(async () => {
  t = await createTestDatabase();
  const org = await t.db.organization.create({ data: { name: "Org", slug: "org" } });
  orgId = org.id;
  projectId = (await t.db.project.create({ data: { orgId, name: "gw", slug: "gw" } })).id;
  for (const name of ["old", "compared", "baseline", "shared", "pinned"]) await storedRun(name, 40);
  await storedRun("recent", 5);
  await t.db.comparison.create({
    data: { orgId, title: "c", runIds: [ids.compared!, ids.recent!], baselineRunId: ids.baseline! },
  });
  await t.db.shareLink.create({
    data: { orgId, tokenHash: `h-${randomBytes(4).toString("hex")}`, runId: ids.shared! },
  });
  expect(await setRunPinned(t.db, orgId, ids.pinned!, true)).toBe(true);
});

afterAll(async () => {
  await runner?.close();
  await t?.drop();
});

describe("a worker with BENCHBOARD_RETAIN_DETAIL_DAYS", () => {
  it("runs retention soon after it starts and on its schedule, never on referenced or recent runs", async () => {
    const env = readEnv({
      DATABASE_URL: t.url,
      REDIS_URL: process.env.REDIS_URL ?? DEFAULT_REDIS_URL,
      BENCHBOARD_QUEUE_PREFIX: `bbretain-${randomBytes(4).toString("hex")}`,
      BENCHBOARD_WORKER_ID: "retainer",
      BENCHBOARD_RETAIN_DETAIL_DAYS: "30",
    });
    const options = runnerOptionsFromEnv(env, {});
    expect(options.retainDetailDays).toBe(30);
    runner = await startRunner({
      ...options,
      notify: false,
      log: (line) => logs.push(line),
      // A minute and an hour in production.
      retentionTiming: { firstAfterMs: 300, everyMs: 1_500 },
    });

    // The first pass: the old run loses its per-second detail, keeping metrics and the merged histogram.
    await waitFor(() => trimmed("old"), 30_000, "the first retention pass");
    const old = await detail("old");
    expect(old.series.map((s) => s.intervalMs)).toEqual([10_000, 10_000]);
    expect(old.series[0]!.values).toEqual([19, 19, 19, 900, 19, 19]);
    expect(old.shard.result).toEqual({ histogram: "HISTshard" });
    expect(old.result.metrics).toEqual({ rps: 130 });
    expect(old.result.histogram).toBe("HISTmerged");
    expect(logs.some((l) => /retention: 1 run\(s\) older than 30 days downsampled to 10 s/.test(l))).toBe(true);

    // A run that ages past the limit later is trimmed by a later pass, without a restart.
    await storedRun("later", 31);
    await waitFor(() => trimmed("later"), 30_000, "a scheduled retention pass");
    // The pass logs once it has committed: wait for its line too.
    await waitFor(
      async () => logs.filter((l) => l.startsWith("retention:")).length >= 2,
      10_000,
      "the second pass's log line",
    );
    // Two passes found work, one run each.
    expect(logs.filter((l) => l.startsWith("retention:"))).toEqual([
      "retention: 1 run(s) older than 30 days downsampled to 10 s",
      "retention: 1 run(s) older than 30 days downsampled to 10 s",
    ]);

    // Referenced and recent runs keep everything, pass after pass.
    for (const name of ["compared", "baseline", "shared", "pinned", "recent"]) {
      const { series, shard, result } = await detail(name);
      expect(
        series.map((s) => [s.intervalMs, s.values]),
        name,
      ).toEqual([
        [1000, p99],
        [1000, perSecond],
      ]);
      expect(shard.result, name).toMatchObject({ intervalHistograms: { histograms: ["a", "b"] } });
      expect(result.detailTrimmedAt, name).toBeNull();
    }
    await runner.close();
    runner = null;
  }, 120_000);

  it("runs no retention when the variable is unset", () => {
    const env = readEnv({});
    expect(runnerOptionsFromEnv(env, {}).retainDetailDays).toBeNull();
    expect(() => readEnv({ BENCHBOARD_RETAIN_DETAIL_DAYS: "0" })).toThrow(/BENCHBOARD_RETAIN_DETAIL_DAYS/);
  });
});
