import { readdirSync } from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { hasCapSysNice } from "../test/privileges";
import { startHttpServer, type TestServer } from "../test/servers";
import { runScenario } from "./index";
import { Pacer } from "./pacer";
import { currentThreadId, IDLE_HELPERS_MAX_RATE, idleHelperThreads, SCHED_IDLE, threadPolicy } from "./realtime";

// Without CAP_SYS_NICE these tests leave this process's helper threads at SCHED_IDLE for good, as
// a worker's run would: they are alone in this file so that no other test's process is changed.

const SCHED_OTHER = 0;
// Putting a thread back from SCHED_IDLE takes CAP_SYS_NICE.
const canRestore = hasCapSysNice();

function threads(): number[] {
  return readdirSync("/proc/self/task").map(Number);
}

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

describe("helper threads at idle priority", () => {
  it("idles every thread but the event loop and the pacing threads alive, and the last run puts them back", async () => {
    const loop = currentThreadId()!;
    // The engine must run on the process's main thread (a test runner may use worker threads).
    if (loop !== process.pid) {
      expect(await idleHelperThreads(100)).toMatchObject({
        helperThreads: "normal",
        note: "the engine is not on the process's main thread",
      });
      return;
    }
    const first = (await Pacer.start())!;
    // Started and not yet asked for its id: the sweep waits for it to say who it is.
    const second = (await Pacer.start())!;
    try {
      const runA = await idleHelperThreads(1_000);
      expect(runA.helperThreads).toBe("idle");
      const a = (await first.threadId())!;
      const b = (await second.threadId())!;
      expect(threadPolicy(loop)).toBe(SCHED_OTHER);
      expect(threadPolicy(a)).toBe(SCHED_OTHER);
      expect(threadPolicy(b)).toBe(SCHED_OTHER);
      const others = threads().filter((t) => t !== loop && t !== a && t !== b);
      expect(others.length).toBeGreaterThan(0);
      for (const t of others) expect({ t, policy: threadPolicy(t) }).toEqual({ t, policy: SCHED_IDLE });

      // A second run at once: the first to end must not put them back under the other.
      const runB = await idleHelperThreads(1_000);
      expect(runB.helperThreads).toBe("idle");
      runA.release();
      runA.release();
      for (const t of others) expect({ t, policy: threadPolicy(t) }).toEqual({ t, policy: SCHED_IDLE });

      // A pacer's thread that has ended is no longer kept.
      first.close();
      await vi.waitFor(() => expect(threadPolicy(a)).toBeNull(), { timeout: 5_000, interval: 10 });
      runB.release();
      const expected = canRestore ? SCHED_OTHER : SCHED_IDLE;
      for (const t of others.filter((t) => threadPolicy(t) !== null)) {
        expect({ t, policy: threadPolicy(t) }).toEqual({ t, policy: expected });
      }

      // Above the rate a run leaves them, and says so; where they could not be put back, it says that.
      const fast = await idleHelperThreads(IDLE_HELPERS_MAX_RATE + 1);
      if (canRestore) {
        expect(fast).toMatchObject({
          helperThreads: "normal",
          note: expect.stringContaining(`above ${IDLE_HELPERS_MAX_RATE} req/s`),
        });
        for (const t of others.filter((t) => threadPolicy(t) !== null)) expect(threadPolicy(t)).toBe(SCHED_OTHER);
      } else {
        expect(fast).toMatchObject({ helperThreads: "idle", note: expect.stringContaining("from another run") });
      }
      fast.release();
    } finally {
      first.close();
      second.close();
    }
  });

  it("says in the result that a run idled them, and counts every request", async () => {
    server = await startHttpServer((_req, res) => res.end("ok"));
    const loop = currentThreadId()!;
    // Looked at once a second during the run: the threads other than the loop (and the pacer's).
    const idleDuring: number[] = [];
    const result = await runScenario(
      { engine: "http-open", rate: 300, durationS: 2, warmupS: 0 },
      {
        baseUrl: server.url,
        idleHelpers: true,
        onTick: () => {
          idleDuring.push(threads().filter((t) => threadPolicy(t) === SCHED_IDLE).length);
        },
      },
    );
    const schedule = result.extra?.schedule as Record<string, unknown>;
    if (loop === process.pid) {
      expect(schedule.helperThreads).toBe("idle");
      expect(schedule.helperThreadsNote).toBeUndefined();
      expect(idleDuring.length).toBeGreaterThan(0);
      // All but the loop and the pacing thread.
      for (const n of idleDuring) expect(n).toBeGreaterThanOrEqual(threads().length - 2);
    } else {
      expect(schedule).toMatchObject({ helperThreads: "normal", helperThreadsNote: expect.any(String) });
    }
    expect(threadPolicy(loop)).toBe(SCHED_OTHER);
    expect(result.metrics.requests).toBe(600);
    expect(schedule.lostWakeups).toBe(0);
    // Without the option nothing is asked, and the result says nothing about it.
    const plain = await runScenario(
      { engine: "http-open", rate: 100, durationS: 1, warmupS: 0 },
      { baseUrl: server.url },
    );
    expect((plain.extra?.schedule as Record<string, unknown>).helperThreads).toBeUndefined();
  });
});
