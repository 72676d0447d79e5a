import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { mayUseRealtime } from "../test/privileges";
import { startHttpServer, type TestServer } from "../test/servers";
import { runScenario } from "./index";
import { Pacer } from "./pacer";
import { currentThreadId, holdRealtime, REALTIME_LATE_MS, REALTIME_MAX_RATE, REALTIME_PRIORITY } from "./realtime";

/** A thread's scheduling policy and real-time priority, from /proc (0: SCHED_OTHER, 1: SCHED_FIFO). */
function scheduling(tid: number): { policy: number; priority: number } {
  const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Fields 40 (rt_priority) and 41 (policy) of proc(5), counted from after the command name.
  return { priority: Number(fields[37]), policy: Number(fields[38]) };
}

// Raising a thread to SCHED_FIFO takes CAP_SYS_NICE (root has it unless a container dropped it)
// or a real-time priority limit; elsewhere the refusal is the behaviour under test.
const permitted = mayUseRealtime();

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

describe("real-time scheduling of the open model", () => {
  it("knows the calling thread's kernel id", () => {
    const tid = currentThreadId();
    expect(tid).not.toBeNull();
    expect(readFileSync(`/proc/self/task/${tid}/comm`, "utf8").length).toBeGreaterThan(0);
  });

  it("raises the loop and the pacing thread, and puts the loop back after the last holder", async () => {
    const loop = currentThreadId()!;
    const pacer = (await Pacer.start())!;
    try {
      const pacerThread = await pacer.threadId();
      expect(pacerThread).not.toBeNull();
      expect(pacerThread).not.toBe(loop);
      // Without the pacing thread's id nothing is raised: a run reported "normal" ran normal.
      expect(holdRealtime(null)).toMatchObject({ scheduling: "normal", reason: "the pacing thread's id is unknown" });
      expect(scheduling(loop).policy).toBe(0);
      const first = holdRealtime(pacerThread);
      if (!permitted) {
        expect(first.scheduling).toBe("normal");
        expect(first.reason).toMatch(/not permitted/);
        expect(scheduling(loop).policy).toBe(0);
        return;
      }
      expect(first).toMatchObject({ scheduling: "realtime" });
      expect(scheduling(loop)).toEqual({ policy: 1, priority: REALTIME_PRIORITY });
      expect(scheduling(pacerThread!)).toEqual({ policy: 1, priority: REALTIME_PRIORITY });
      // A second run in the same process shares the loop: the first to end must not lower it.
      const second = holdRealtime(pacerThread);
      first.release();
      first.release();
      expect(scheduling(loop).policy).toBe(1);
      second.release();
      expect(scheduling(loop)).toEqual({ policy: 0, priority: 0 });
    } finally {
      pacer.close();
    }
  });

  it("says in the result how the run was scheduled, loses no wake-up, and leaves the loop as it found it", async () => {
    server = await startHttpServer((_req, res) => res.end("ok"));
    const loop = currentThreadId()!;
    // What the loop's policy was while the run went, looked at from the loop itself.
    const seen: number[] = [];
    const look = setInterval(() => seen.push(scheduling(loop).policy), 10);
    const result = await runScenario(
      { engine: "http-open", rate: 1000, durationS: 1, warmupS: 0 },
      { baseUrl: server.url, realtime: true },
    ).finally(() => clearInterval(look));
    const schedule = result.extra?.schedule as { scheduling?: string; schedulingNote?: string; lostWakeups?: number };
    // Raised once, for one stretch, and never again once put back.
    const stretches = seen
      .map(String)
      .join("")
      .replace(/(.)\1+/g, "$1");
    if (permitted) {
      expect(stretches).toMatch(/^0?10?$/);
      // On a machine this busy the guard may give real-time up mid-run (its own test is below);
      // either way the result says what the loop had.
      if (schedule.scheduling === "normal") expect(schedule.schedulingNote).toMatch(/^left real-time after /);
      else expect(schedule).toMatchObject({ scheduling: "realtime" });
    } else {
      expect(stretches).toBe("0");
      expect(schedule).toMatchObject({ scheduling: "normal", schedulingNote: expect.stringMatching(/permitted/) });
    }
    // Every wake-up the pacing thread sent reached the loop (none replaced by the timer check).
    expect(schedule.lostWakeups).toBe(0);
    expect(result.metrics.requests).toBe(1000);
    expect(scheduling(loop).policy).toBe(0);
    // Without the option nothing is asked, and the result says nothing about it.
    const plain = await runScenario(
      { engine: "http-open", rate: 100, durationS: 1, warmupS: 0 },
      { baseUrl: server.url },
    );
    expect((plain.extra?.schedule as Record<string, unknown>).scheduling).toBeUndefined();
  });

  it("keeps normal scheduling above the rate where a real-time loop would be throttled", async () => {
    server = await startHttpServer((_req, res) => res.end("ok"));
    const loop = currentThreadId()!;
    // A ramp whose start is above the ceiling; stopped early, since only the decision matters here.
    const abort = new AbortController();
    const started = runScenario(
      { engine: "http-open", rate: 10, rampFromRate: REALTIME_MAX_RATE + 1, rampS: 1, durationS: 1, warmupS: 0 },
      { baseUrl: server.url, realtime: true, signal: abort.signal },
    );
    setTimeout(() => abort.abort(), 50);
    const result = await started;
    expect(result.extra?.schedule).toMatchObject({
      scheduling: "normal",
      schedulingNote: expect.stringContaining(`above ${REALTIME_MAX_RATE} req/s`),
    });
    expect(scheduling(loop).policy).toBe(0);
  });

  it("leaves real-time when its sends come later than normal scheduling's would, and says when", async () => {
    server = await startHttpServer((_req, res) => res.end("ok"));
    const loop = currentThreadId()!;
    // The event loop held 3 ms of every 10: a good share of the sends leave over 1 ms late.
    const busy = setInterval(() => {
      const until = performance.now() + 3;
      while (performance.now() < until) {}
    }, 10);
    try {
      const result = await runScenario(
        { engine: "http-open", rate: 150, durationS: 3, warmupS: 0 },
        { baseUrl: server.url, realtime: true },
      );
      const schedule = result.extra?.schedule as { scheduling?: string; schedulingNote?: string };
      expect(schedule.scheduling).toBe("normal");
      if (permitted) {
        // 150 req/s: half a second holds 75 sends, too few to judge; the guard waits for more.
        const note = new RegExp(
          `^left real-time after (\\d+\\.\\d) s: (\\d+) of (\\d+) sends in (\\d+\\.\\d) s left more than ${REALTIME_LATE_MS} ms late`,
        ).exec(schedule.schedulingNote ?? "");
        expect(note, schedule.schedulingNote).not.toBeNull();
        expect(Number(note![3])).toBeGreaterThanOrEqual(100);
        expect(Number(note![4])).toBeGreaterThanOrEqual(1);
      } else expect(schedule.schedulingNote).toMatch(/permitted/);
      expect(result.metrics.requests).toBe(450);
      expect(scheduling(loop).policy).toBe(0);
    } finally {
      clearInterval(busy);
    }
  });
});
