import { readdirSync, readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { ImportError } from "./import-error";
import { importRun } from "./index";
import { ParsePool, ParsePoolBusyError } from "./parse-pool";
import { PARSE_THREAD_NICE } from "./parse-priority";
import { fixture } from "./test-support";

const pool = new ParsePool({ size: 1, timeoutMs: 20_000 });
afterAll(() => pool.close());

/** 10 MB of lines a backtracking parser would chew on, ending in no valid report. */
const HOSTILE = `${" ".repeat(8_000)}x\n`.repeat(1_250);

/** The nice value of each of this process's threads (Linux: field 19 of /proc/self/task/<tid>/stat). */
function threadNices(): number[] {
  return readdirSync("/proc/self/task").map((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[16]);
  });
}

describe("ParsePool", () => {
  it("parses on threads below the request thread's priority, leaving the process's own as it was", async () => {
    const before = threadNices();
    const own = new ParsePool({ size: 2, timeoutMs: 20_000 });
    try {
      // Two owners, so both threads read (one owner may hold only one thread of two); a thread
      // sets its priority before it takes its first read.
      await Promise.all([
        own.read({ format: "auto", content: fixture("wrk2/latency.txt") }, "org-a"),
        own.read({ format: "auto", content: fixture("wrk2/latency.txt") }, "org-b"),
      ]);
      const after = threadNices();
      expect(after.filter((n) => n === PARSE_THREAD_NICE).length).toBe(
        before.filter((n) => n === PARSE_THREAD_NICE).length + 2,
      );
      // This (the request) thread keeps its priority: the main thread's task id is the process id.
      const main = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8");
      expect(Number(main.slice(main.lastIndexOf(")") + 2).split(" ")[16])).toBe(0);
    } finally {
      await own.close();
    }
  });

  it("reads an upload on a thread exactly as the importer does in-process", async () => {
    const text = fixture("wrk2/latency.txt");
    const read = await pool.read({ format: "auto", content: text });
    expect(read.format).toBe("wrk");
    expect(read.run).toEqual(importRun("wrk", text));
  });

  it("hands back the importer's error with its line", async () => {
    const err = await pool.read({ format: "hey", content: "Summary:\n  Total: nonsense\n" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImportError);
    expect((err as ImportError).line).toBe(2);
    expect((err as ImportError).message).toMatch(/^hey output, line 2: /);
  });

  it("keeps this thread free while a 10 MB hostile upload is read", async () => {
    let settled = false;
    const reading = pool.read({ format: "wrk", content: HOSTILE }).finally(() => {
      settled = true;
    });
    // Timers fire here while the read is still under way on the pool's thread.
    const ticks: number[] = [];
    for (let i = 0; i < 5 && !settled; i++) {
      await new Promise((r) => setTimeout(r, 1));
      ticks.push(i);
    }
    expect(ticks.length).toBeGreaterThan(0);
    expect(settled).toBe(false);
    await expect(reading).rejects.toBeInstanceOf(ImportError);
  });

  it("stops a read over its time limit and keeps serving the next ones", async () => {
    const quick = new ParsePool({ size: 1, timeoutMs: 1 });
    try {
      const err = await quick.read({ format: "wrk", content: HOSTILE }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ImportError);
      expect((err as ImportError).message).toMatch(/took longer than 0 s/);
    } finally {
      await quick.close();
    }
    const read = await pool.read({ format: "ab", content: fixture("ab/basic.txt") });
    expect(read.format).toBe("ab");
  });

  it("refuses work beyond its queue at once", async () => {
    const tiny = new ParsePool({ size: 1, maxQueued: 1, maxQueuedPerOwner: 1 });
    try {
      const first = tiny.read({ format: "wrk", content: HOSTILE }).catch(() => null);
      const second = tiny.read({ format: "wrk", content: HOSTILE }).catch(() => null);
      await expect(tiny.read({ format: "wrk", content: "x" })).rejects.toBeInstanceOf(ParsePoolBusyError);
      await Promise.all([first, second]);
    } finally {
      await tiny.close();
    }
  });

  it("starts with at least two threads, so one organization never takes them all", () => {
    const fresh = new ParsePool();
    expect(fresh.size).toBeGreaterThanOrEqual(2);
    expect(fresh.maxQueuedPerOwner).toBeLessThan(fresh.maxQueued);
    expect(fresh.maxThreadsPerOwner).toBe(fresh.size - 1);
    void fresh.close();
  });

  it("serves another organization's small upload before any of one organization's burst", async () => {
    const shared = new ParsePool({ size: 2, maxBytesPerOwner: 64 * 1024 * 1024, timeoutMs: 120_000 });
    try {
      // 2 MB of blank lines, five at once from one organization.
      const blank = "\n".repeat(2_000_000);
      const order: string[] = [];
      const burst = Array.from({ length: 5 }, (_, i) =>
        shared
          .read({ format: "auto", content: blank }, "org-a")
          .catch((e: unknown) => e)
          .finally(() => order.push(`a${i}`)),
      );
      // The burst holds one thread and queues the rest; the other thread is free for org B.
      expect(shared.usage("org-a")).toMatchObject({ threads: 1, queued: 4 });
      const small = await shared.read({ format: "wrk", content: fixture("wrk/no-latency.txt") }, "org-b");
      order.push("b");
      expect(small.format).toBe("wrk");
      expect(order).toEqual(["b"]);
      const results = await Promise.all(burst);
      for (const r of results) expect(r).toBeInstanceOf(ImportError);
      expect(shared.usage("org-a")).toEqual({ threads: 0, queued: 0, bytes: 0 });
    } finally {
      await shared.close();
    }
  }, 300_000);

  it("refuses an organization's uploads beyond its byte budget, with a time to retry, and no one else's", async () => {
    const budget = new ParsePool({ size: 2, maxBytesPerOwner: 2 * 1024 * 1024, timeoutMs: 120_000 });
    try {
      const blank = "\n".repeat(1_000_000);
      const held = [0, 1].map(() => budget.read({ format: "wrk", content: blank }, "org-a").catch(() => null));
      const refused = await budget.read({ format: "wrk", content: blank }, "org-a").catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(ParsePoolBusyError);
      expect((refused as ParsePoolBusyError).retryAfterS).toBeGreaterThanOrEqual(1);
      expect((refused as ParsePoolBusyError).message).toMatch(/2 MB/);
      const other = await budget.read({ format: "ab", content: fixture("ab/basic.txt") }, "org-b");
      expect(other.format).toBe("ab");
      await Promise.all(held);
      // Once its reads are done the organization has its whole budget again.
      const again = await budget.read({ format: "wrk", content: fixture("wrk/no-latency.txt") }, "org-a");
      expect(again.format).toBe("wrk");
    } finally {
      await budget.close();
    }
  }, 300_000);
});
