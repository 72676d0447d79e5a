import { describe, expect, it } from "vitest";
import { WorkerPool } from "./worker-pool";

/** A job the test finishes by hand, so the pool's state can be checked at each step. */
function gatedJobs() {
  const started: number[] = [];
  const gates = new Map<number, () => void>();
  const process = (job: number) =>
    new Promise<void>((resolve) => {
      started.push(job);
      gates.set(job, resolve);
    });
  const finish = async (job: number) => {
    gates.get(job)!();
    // Let the worker loop pick its next job.
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { started, process, finish };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("WorkerPool", () => {
  it("hands jobs to idle workers, queues up to capacity, then refuses", async () => {
    const { started, process, finish } = gatedJobs();
    const pool = new WorkerPool<number>(process, { capacity: 2, workers: 2, name: "test" });
    expect([1, 2, 3, 4, 5].map((job) => pool.offer(job))).toEqual([true, true, true, true, false]);
    await tick();
    expect(started).toEqual([1, 2]);
    expect(pool.busy).toBe(2);
    expect(pool.depth).toBe(2);
    await finish(1);
    expect(started).toEqual([1, 2, 3]);
    expect(pool.depth).toBe(1);
    expect(pool.offer(6)).toBe(true);
    expect(pool.offer(7)).toBe(false);
  });

  it("makes producers wait for room in arrival order when the queue is full", async () => {
    const { started, process, finish } = gatedJobs();
    const pool = new WorkerPool<number>(process, { capacity: 1, workers: 1, name: "test" });
    const admitted: number[] = [];
    for (const job of [1, 2, 3, 4]) void pool.put(job).then(() => admitted.push(job));
    await tick();
    expect(admitted).toEqual([1, 2]);
    expect(pool.blockedCount).toBe(2);
    await finish(1);
    expect(admitted).toEqual([1, 2, 3]);
    await finish(2);
    await finish(3);
    await finish(4);
    expect(started).toEqual([1, 2, 3, 4]);
    expect(pool.blockedCount).toBe(0);
  });

  it("lets a waiting producer give up", async () => {
    const { process } = gatedJobs();
    const pool = new WorkerPool<number>(process, { capacity: 1, workers: 1, name: "test" });
    pool.offer(1);
    pool.offer(2);
    const controller = new AbortController();
    const waiting = pool.put(3, controller.signal);
    expect(pool.blockedCount).toBe(1);
    controller.abort(new Error("client left"));
    await expect(waiting).rejects.toThrow("client left");
    expect(pool.blockedCount).toBe(0);
  });

  it("grows and shrinks the worker set and the queue at runtime", async () => {
    const { started, process, finish } = gatedJobs();
    const pool = new WorkerPool<number>(process, { capacity: 10, workers: 1, name: "test" });
    for (const job of [1, 2, 3, 4]) pool.offer(job);
    await tick();
    expect(started).toEqual([1]);
    pool.setWorkers(3);
    await tick();
    expect(started).toEqual([1, 2, 3]);
    expect(pool.workers).toBe(3);
    pool.setWorkers(1);
    await finish(1);
    await finish(2);
    // Two workers stopped after their jobs; the one left takes job 4 once job 3 is done.
    expect(pool.workers).toBe(1);
    expect(started).toEqual([1, 2, 3]);
    await finish(3);
    expect(started).toEqual([1, 2, 3, 4]);
    pool.setCapacity(0);
    expect(pool.offer(5)).toBe(false);
  });
});
