import { describe, expect, it } from "vitest";
import { askUntilAnswered, STALL_TICK_MS, StallGuard } from "./stall-confirm";

describe("askUntilAnswered", () => {
  it("asks again after a failure (a connection closed while frozen) and takes the answer", async () => {
    let attempts = 0;
    const answer = await askUntilAnswered(
      async () => {
        attempts++;
        if (attempts === 1) throw new Error("socket closed");
        return true;
      },
      { timeoutMs: 2_000, retryMs: 20 },
    );
    expect(answer).toEqual({ goOn: true, error: null });
    expect(attempts).toBe(2);
  });

  it("takes a 'no' at once", async () => {
    let attempts = 0;
    const answer = await askUntilAnswered(
      async () => {
        attempts++;
        return false;
      },
      { timeoutMs: 2_000, retryMs: 20 },
    );
    expect(answer).toEqual({ goOn: false, error: null });
    expect(attempts).toBe(1);
  });

  it("says no, with the last failure, when nothing answers in time", async () => {
    const failing = await askUntilAnswered(
      async () => {
        throw new Error("refused");
      },
      { timeoutMs: 200, retryMs: 20 },
    );
    expect(failing.goOn).toBe(false);
    expect((failing.error as Error).message).toBe("refused");
    const silent = await askUntilAnswered(() => new Promise<boolean>(() => undefined), { timeoutMs: 100 });
    expect(silent.goOn).toBe(false);
    expect((silent.error as Error).message).toMatch(/no answer within/);
  });

  it("stops asking once its signal aborts", async () => {
    const controller = new AbortController();
    let attempts = 0;
    setTimeout(() => controller.abort(), 60);
    const answer = await askUntilAnswered(
      async () => {
        attempts++;
        throw new Error("down");
      },
      { timeoutMs: 5_000, retryMs: 20, signal: controller.signal },
    );
    expect(answer.goOn).toBe(false);
    expect(attempts).toBeLessThan(10);
  });
});

/** Holds this thread for `ms`, as a frozen process would be held. */
function hold(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {}
}

describe("StallGuard", () => {
  it("after the loop was held beyond its bound, lets nothing go until the run is confirmed", async () => {
    let answer: (goOn: boolean) => void = () => undefined;
    const asked: number[] = [];
    const guard = new StallGuard({
      boundMs: 100,
      startPerf: performance.now(),
      confirm: (stall) => {
        asked.push(stall.gapMs);
        return new Promise((resolve) => {
          answer = resolve;
        });
      },
    });
    try {
      expect(guard.mayGo(performance.now())).toBe(true);
      hold(STALL_TICK_MS + 100 + 50);
      // The first sender after the hold finds it, before any timer has run.
      expect(guard.mayGo(performance.now())).toBe(false);
      expect(asked).toHaveLength(1);
      expect(asked[0]).toBeGreaterThan(STALL_TICK_MS + 100);
      const settled = guard.settled();
      answer(true);
      expect(await settled).toBe(true);
      expect(guard.mayGo(performance.now())).toBe(true);
      expect(guard.stopped).toBe(false);
      expect(guard.stalls()).toHaveLength(1);
      // A hold within the bound is no stall.
      hold(60);
      expect(guard.mayGo(performance.now())).toBe(true);
      expect(asked).toHaveLength(1);
    } finally {
      guard.stop();
    }
  });

  it("stops for good when the run is not confirmed (or the question fails)", async () => {
    for (const confirm of [async () => false, async () => Promise.reject(new Error("no answer"))]) {
      const guard = new StallGuard({ boundMs: 100, startPerf: performance.now(), confirm });
      try {
        hold(STALL_TICK_MS + 200);
        expect(guard.mayGo(performance.now())).toBe(false);
        expect(await guard.settled()).toBe(false);
        expect(guard.stopped).toBe(true);
        expect(guard.mayGo(performance.now())).toBe(false);
      } finally {
        guard.stop();
      }
    }
  });

  it("counts the sends a caller dropped for one stall in that stall, without a confirmation too", () => {
    const guard = new StallGuard({ boundMs: 100, startPerf: performance.now() });
    try {
      hold(300);
      const now = performance.now();
      for (let i = 0; i < 5; i++) guard.report(now + i, 250 - i * 20, 1);
      expect(guard.mayGo(performance.now())).toBe(true);
      expect(guard.stalls()).toHaveLength(1);
      expect(guard.stalls()[0]!.dropped).toBe(5);
    } finally {
      guard.stop();
    }
  });
});
