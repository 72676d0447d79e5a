import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AgentJob,
  type AgentJobTaker,
  createAgentJobTaker,
  createQueueFor,
  DEFAULT_REDIS_URL,
  enqueue,
  JOBS,
} from "./index";

// The claim endpoint's job taker on the real Redis: every job handed out once, oldest first,
// from many concurrent claims over one connection.

const redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
const prefix = `bbtaker-${randomBytes(4).toString("hex")}`;
let taker: AgentJobTaker;
let queueFor: ReturnType<typeof createQueueFor>;

beforeAll(() => {
  taker = createAgentJobTaker(redisUrl, prefix);
  queueFor = createQueueFor(redisUrl, prefix);
});

afterAll(async () => {
  await taker?.close();
  for (const name of ["agents.o.a", "agents.o.b"]) await queueFor(name).obliterate({ force: true });
  await queueFor?.closeAll();
});

describe("agent job taker", () => {
  it("hands each job to exactly one of many concurrent claims, oldest first, and a job given back goes first", async () => {
    const ids = Array.from({ length: 20 }, (_, i) => `run-${i}`);
    for (const [i, id] of ids.entries()) {
      await enqueue(queueFor(i % 2 ? "agents.o.b" : "agents.o.a"), JOBS.runExecute, { runId: id }, { jobId: id });
    }
    const taken: AgentJob[] = [];
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (;;) {
          const job = await taker.take(["agents.o.a", "agents.o.b"], 0);
          if (!job) return;
          taken.push(job);
        }
      }),
    );
    expect(taken.map((j) => j.id).sort()).toEqual([...ids].sort());
    expect(taken.every((j) => j.name === "run.execute" && j.data.runId === j.id)).toBe(true);
    // Nothing left behind on either queue, in any state.
    for (const name of ["agents.o.a", "agents.o.b"]) {
      const counts = await queueFor(name).getJobCounts("waiting", "active", "completed", "failed");
      expect(
        Object.values(counts).every((n) => n === 0),
        JSON.stringify(counts),
      ).toBe(true);
    }
    // Oldest first on one queue.
    await enqueue(queueFor("agents.o.a"), JOBS.runShard, { runId: "s", index: 0 }, { jobId: "s-shard-0" });
    await enqueue(queueFor("agents.o.a"), JOBS.runShard, { runId: "s", index: 1 }, { jobId: "s-shard-1" });
    const first = await taker.take(["agents.o.a"], 0);
    expect(first).toEqual({ queue: "agents.o.a", id: "s-shard-0", name: "run.shard", data: { runId: "s", index: 0 } });
    await taker.giveBack(first!);
    expect((await taker.take(["agents.o.a"], 0))?.id).toBe("s-shard-0");
    expect((await taker.take(["agents.o.a"], 0))?.id).toBe("s-shard-1");
    expect(await taker.take(["agents.o.a"], 300)).toBeNull();
  }, 30_000);

  it("leaves a job its accept declines in its place for another taker, and hands the next one it accepts", async () => {
    for (const id of ["big-1", "small-1", "small-2"]) {
      await enqueue(queueFor("agents.o.a"), JOBS.runExecute, { runId: id }, { jobId: id });
    }
    const onlySmall = async (job: AgentJob) => job.data.runId.startsWith("small");
    const asked: string[] = [];
    const picky = await taker.take(["agents.o.a"], 0, undefined, async (job) => {
      asked.push(job.id);
      return onlySmall(job);
    });
    expect(picky?.id).toBe("small-1");
    expect(asked).toEqual(["big-1", "small-1"]);
    // Many picky claims at once: each accepted job goes to one of them; the declined one stays.
    const taken = await Promise.all(
      Array.from({ length: 4 }, () => taker.take(["agents.o.a"], 0, undefined, onlySmall)),
    );
    expect(taken.filter(Boolean).map((j) => j!.id)).toEqual(["small-2"]);
    expect(await queueFor("agents.o.a").getWaitingCount()).toBe(1);
    // A claim that accepts it (or asks nothing) takes it, still first in line.
    expect((await taker.take(["agents.o.a"], 0, undefined, async () => true))?.id).toBe("big-1");
    expect(await taker.take(["agents.o.a"], 0)).toBeNull();
  }, 30_000);
});
