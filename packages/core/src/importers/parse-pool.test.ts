import { afterAll, describe, expect, it } from "vitest";
import { ImportError } from "./import-error";
import { importRun } from "./index";
import { ParsePool, ParsePoolBusyError } from "./parse-pool";
import { fixture } from "./test-support";

const pool = new ParsePool({ size: 1, timeoutMs: 20_000 });
afterAll(() => pool.close());

/** 10 MB of lines a backtracking parser would chew on, ending in no valid report. */
const HOSTILE = `${" ".repeat(8_000)}x\n`.repeat(1_250);

describe("ParsePool", () => {
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
    const tiny = new ParsePool({ size: 1, maxQueued: 1 });
    try {
      const first = tiny.read({ format: "wrk", content: HOSTILE }).catch(() => null);
      const second = tiny.read({ format: "wrk", content: HOSTILE }).catch(() => null);
      await expect(tiny.read({ format: "wrk", content: "x" })).rejects.toBeInstanceOf(ParsePoolBusyError);
      await Promise.all([first, second]);
    } finally {
      await tiny.close();
    }
  });
});
