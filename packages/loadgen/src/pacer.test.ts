import { afterEach, describe, expect, it } from "vitest";
import { Pacer } from "./pacer";

let pacer: Pacer | null = null;
afterEach(() => {
  pacer?.close();
  pacer = null;
});

/** Resolves to "woken" if the wake-up comes within `ms`, else "lost". */
function within(wake: Promise<unknown>, ms: number): Promise<"woken" | "lost"> {
  return Promise.race([
    wake.then(() => "woken" as const),
    new Promise<"lost">((resolve) => setTimeout(() => resolve("lost"), ms)),
  ]);
}

describe("Pacer", () => {
  it("wakes the loop at or after the time asked for", async () => {
    pacer = Pacer.start();
    expect(pacer).not.toBeNull();
    const due = performance.now() + 20;
    await pacer!.wakeAt(due);
    expect(performance.now()).toBeGreaterThanOrEqual(due);
  });

  it("serves a due time asked for again after its wake-up", async () => {
    pacer = Pacer.start();
    const due = performance.now() + 10;
    expect(await within(pacer!.wakeAt(due), 1000)).toBe("woken");
    // The loop found nothing to send and asks for the same time again: it must still be woken.
    expect(await within(pacer!.wakeAt(due), 1000)).toBe("woken");
    expect(await within(pacer!.wakeAt(due - 5), 1000)).toBe("woken");
  });

  it("wakes at a postponed time, not the first one", async () => {
    pacer = Pacer.start();
    const first = performance.now() + 10;
    const wake = pacer!.wakeAt(first);
    pacer!.postpone(first + 40);
    await wake;
    expect(performance.now()).toBeGreaterThanOrEqual(first + 40);
  });

  it("serves a request postponed after the thread has already woken the loop", async () => {
    pacer = Pacer.start();
    const first = performance.now() + 5;
    const wake = pacer!.wakeAt(first);
    // Give the thread time to serve the first request before the loop has seen it resolve.
    const until = performance.now() + 30;
    while (performance.now() < until) {}
    pacer!.postpone(performance.now() + 10);
    await wake;
    expect(await within(pacer!.wakeAt(performance.now() + 10), 1000)).toBe("woken");
  });
});
