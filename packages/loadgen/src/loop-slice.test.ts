import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { hasCapSysNice } from "../test/privileges";
import { startHttpServer, type TestServer } from "../test/servers";
import { runScenario } from "./index";
import { Pacer } from "./pacer";
import {
  currentThreadId,
  holdRealtime,
  kernelHasCustomSlices,
  LOOP_SLICE_MAX_RATE,
  LOOP_SLICE_NS,
  SCHED_BATCH,
  shortLoopSlice,
  threadPolicy,
  threadSlice,
} from "./realtime";

// These tests change this process's event-loop thread (its slice, its nice value): they are alone
// in this file so that no other test's process is changed.

const loop = currentThreadId()!;
/** The kernel's default slice for this thread before any test here changed it. */
const defaultSlice = threadSlice(loop);
// A custom slice takes Linux 6.12+ and Perl to make the call; the kernel shows a thread's slice in
// /proc/<pid>/task/<tid>/sched where it keeps scheduler statistics.
const hasPerl = (() => {
  try {
    execFileSync("perl", ["-e", "1"]);
    return true;
  } catch {
    return false;
  }
})();
const supported = kernelHasCustomSlices() && hasPerl && defaultSlice !== null;

function nice(tid: number): number {
  const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
}

// A pacing thread of the tests' own, as a run has.
let pacer: Pacer;
let pacing: number | null = null;
beforeAll(async () => {
  pacer = (await Pacer.start())!;
  pacing = await pacer.threadId();
});
afterAll(() => pacer.close());

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

describe("the event loop's short slice", () => {
  it("knows which kernels have custom slices", () => {
    expect(kernelHasCustomSlices("6.11.9")).toBe(false);
    expect(kernelHasCustomSlices("6.12.0-amd64")).toBe(true);
    expect(kernelHasCustomSlices("6.18.44-fc-v657")).toBe(true);
    expect(kernelHasCustomSlices("5.15.0-91-generic")).toBe(false);
    expect(kernelHasCustomSlices("7.1.0")).toBe(true);
  });

  it("shortens the loop's slice while a run holds it, and the last run puts the default back", () => {
    const first = shortLoopSlice(500, pacing);
    if (!supported) {
      expect(first).toMatchObject({ loopSlice: "default", note: expect.any(String) });
      return;
    }
    expect(first).toMatchObject({ loopSlice: "short" });
    expect(first.note).toBeUndefined();
    expect(threadSlice(loop)).toBe(LOOP_SLICE_NS);
    expect(threadSlice(pacing!)).toBe(LOOP_SLICE_NS);
    // A second run in the same process shares the loop: the first to end must not lengthen it.
    const second = shortLoopSlice(LOOP_SLICE_MAX_RATE, pacing);
    expect(second.loopSlice).toBe("short");
    first.release();
    first.release();
    expect(threadSlice(loop)).toBe(LOOP_SLICE_NS);
    second.release();
    expect(threadSlice(loop)).toBe(defaultSlice);
    expect(threadPolicy(loop)).toBe(0);
  });

  it("leaves the slice alone above the rate, and says why", () => {
    const fast = shortLoopSlice(LOOP_SLICE_MAX_RATE + 1, pacing);
    expect(fast).toMatchObject({
      loopSlice: "default",
      note: expect.stringContaining(`above ${LOOP_SLICE_MAX_RATE} req/s`),
    });
    fast.release();
    if (supported) expect(threadSlice(loop)).toBe(defaultSlice);
  });

  it("leaves both threads alone when the pacing thread's id is unknown", () => {
    const held = shortLoopSlice(1000, null);
    expect(held).toMatchObject({ loopSlice: "default", note: expect.any(String) });
    if (supported) {
      expect(held.note).toBe("the pacing thread's id is unknown");
      expect(threadSlice(loop)).toBe(defaultSlice);
    }
  });

  it("keeps the loop's nice value", () => {
    if (!supported) return;
    // Raising a thread's nice value needs no privilege; lowering it back does.
    const before = nice(loop);
    os.setPriority(loop, Math.min(19, before + 3));
    const held = shortLoopSlice(500, pacing);
    try {
      expect(held.loopSlice).toBe("short");
      expect(nice(loop)).toBe(Math.min(19, before + 3));
    } finally {
      held.release();
    }
    expect(nice(loop)).toBe(Math.min(19, before + 3));
    expect(threadSlice(loop)).toBe(defaultSlice);
    if (hasCapSysNice()) os.setPriority(loop, before);
  });

  it("says so where Perl, which makes the call, cannot be found", () => {
    if (!kernelHasCustomSlices()) return;
    const path = process.env.PATH;
    process.env.PATH = "/nonexistent";
    try {
      const held = shortLoopSlice(500, pacing);
      expect(held).toMatchObject({ loopSlice: "default", note: expect.stringMatching(/perl is not installed/) });
    } finally {
      process.env.PATH = path;
    }
    if (supported) expect(threadSlice(loop)).toBe(defaultSlice);
  });

  it("never takes a real-time loop down to the fair scheduler, and gives the slice back after real-time", async () => {
    if (!supported) return;
    const other = (await Pacer.start())!;
    try {
      const held = shortLoopSlice(500, pacing);
      expect(held.loopSlice).toBe("short");
      const realtime = holdRealtime(await other.threadId());
      if (realtime.scheduling === "realtime") {
        // Another run asking now finds the loop real-time and leaves it so.
        const another = shortLoopSlice(500, pacing);
        expect(another).toMatchObject({ loopSlice: "default", note: "the event loop is at real-time priority" });
        expect(threadPolicy(loop)).toBe(1);
        another.release();
        expect(threadPolicy(loop)).toBe(1);
        // Back at SCHED_OTHER, the run still holding the short slice has it again.
        realtime.release();
        expect(threadPolicy(loop)).toBe(0);
        expect(threadSlice(loop)).toBe(LOOP_SLICE_NS);
        held.release();
        expect(threadSlice(loop)).toBe(defaultSlice);
        // The slice's last run ends while the loop is real-time: the default comes back with SCHED_OTHER.
        const again = shortLoopSlice(500, pacing);
        const realtimeAgain = holdRealtime(await other.threadId());
        expect(realtimeAgain.scheduling).toBe("realtime");
        again.release();
        expect(threadPolicy(loop)).toBe(1);
        realtimeAgain.release();
        expect(threadPolicy(loop)).toBe(0);
        expect(threadSlice(loop)).toBe(defaultSlice);
      } else {
        realtime.release();
        held.release();
        expect(threadSlice(loop)).toBe(defaultSlice);
      }
    } finally {
      other.close();
    }
  });

  it("says in the result that a run had it, holds it while the run goes, and counts every request", async () => {
    server = await startHttpServer((_req, res) => res.end("ok"));
    const during: (number | null)[] = [];
    // Threads other than the loop and the tests' own pacing thread with the short slice: the run's pacing thread.
    const othersShort: number[] = [];
    // Threads at SCHED_BATCH: the run's pacing thread, which must not preempt the loop.
    const batch: number[] = [];
    const result = await runScenario(
      { engine: "http-open", rate: 300, durationS: 2, warmupS: 0 },
      {
        baseUrl: server.url,
        loopSlice: true,
        onTick: () => {
          during.push(threadSlice(loop));
          othersShort.push(
            readdirSync("/proc/self/task")
              .map(Number)
              .filter((t) => t !== loop && t !== pacing && threadSlice(t) === LOOP_SLICE_NS).length,
          );
          batch.push(
            readdirSync("/proc/self/task")
              .map(Number)
              .filter((t) => threadPolicy(t) === SCHED_BATCH).length,
          );
        },
      },
    );
    const schedule = result.extra?.schedule as Record<string, unknown>;
    if (supported) {
      expect(schedule.loopSlice).toBe("short");
      expect(schedule.loopSliceNote).toBeUndefined();
      expect(during.length).toBeGreaterThan(0);
      for (const slice of during) expect(slice).toBe(LOOP_SLICE_NS);
      for (const n of othersShort) expect(n).toBeGreaterThanOrEqual(1);
      expect(threadSlice(loop)).toBe(defaultSlice);
    } else {
      expect(schedule).toMatchObject({ loopSlice: "default", loopSliceNote: expect.any(String) });
    }
    if (hasPerl) {
      // One thread at SCHED_BATCH on every tick (the loop never is), and the result says so.
      expect(schedule.pacingThread).toBe("batch");
      expect(batch.length).toBeGreaterThan(0);
      for (const n of batch) expect(n).toBe(1);
      expect(threadPolicy(loop)).toBe(0);
    }
    expect(result.metrics.requests).toBe(600);
    expect(schedule.lostWakeups).toBe(0);
    // Without the option nothing is asked, and the result says nothing about it.
    const plain = await runScenario(
      { engine: "http-open", rate: 100, durationS: 1, warmupS: 0 },
      { baseUrl: server.url },
    );
    expect((plain.extra?.schedule as Record<string, unknown>).loopSlice).toBeUndefined();
    expect((plain.extra?.schedule as Record<string, unknown>).pacingThread).toBeUndefined();
    if (supported) expect(threadSlice(loop)).toBe(defaultSlice);
  });

  it("puts the pacing thread at SCHED_BATCH above the slice's bound too, with the kernel's default slice", async () => {
    server = await startHttpServer((_req, res) => res.end("ok"));
    const batchSlices: (number | null)[] = [];
    const result = await runScenario(
      { engine: "http-open", rate: LOOP_SLICE_MAX_RATE * 2, durationS: 1, warmupS: 0 },
      {
        baseUrl: server.url,
        loopSlice: true,
        onTick: () => {
          for (const t of readdirSync("/proc/self/task").map(Number))
            if (threadPolicy(t) === SCHED_BATCH) batchSlices.push(threadSlice(t));
        },
      },
    );
    const schedule = result.extra?.schedule as Record<string, unknown>;
    expect(schedule.loopSlice).toBe("default");
    expect(result.metrics.requests).toBe(LOOP_SLICE_MAX_RATE * 2);
    if (!hasPerl) {
      expect(schedule).toMatchObject({ pacingThread: "normal", pacingThreadNote: expect.stringMatching(/perl/) });
      return;
    }
    expect(schedule.pacingThread).toBe("batch");
    expect(batchSlices.length).toBeGreaterThan(0);
    if (supported) for (const slice of batchSlices) expect(slice).toBe(defaultSlice);
  });
});
