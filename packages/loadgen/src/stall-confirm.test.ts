import { describe, expect, it } from "vitest";
import { askUntilAnswered } from "./stall-confirm";

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
