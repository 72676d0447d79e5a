import { once } from "node:events";
import { writeSync } from "node:fs";
import net from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { openWakeChannel, Pacer } from "./pacer";

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

describe.each(["socket", "atomics"] as const)("Pacer waking the loop through %s", (path) => {
  it("uses the wake-up path asked for", async () => {
    pacer = await Pacer.start({ wake: path });
    expect(pacer?.wake).toBe(path);
  });

  it("is ready when started: its thread already runs", async () => {
    pacer = await Pacer.start({ wake: path });
    // The thread reports its id as it starts running; a pacer handed out before that would leave
    // the first wake-ups to a thread still starting up.
    const settled = await Promise.race([pacer!.threadId().then(() => true), Promise.resolve().then(() => false)]);
    expect(settled).toBe(true);
    expect(await pacer!.threadId()).toBeGreaterThan(0);
  });

  it("wakes the loop at or after the time asked for", async () => {
    pacer = await Pacer.start({ wake: path });
    expect(pacer).not.toBeNull();
    const due = performance.now() + 20;
    await pacer!.wakeAt(due);
    expect(performance.now()).toBeGreaterThanOrEqual(due);
  });

  it("serves a due time asked for again after its wake-up", async () => {
    pacer = await Pacer.start({ wake: path });
    const due = performance.now() + 10;
    expect(await within(pacer!.wakeAt(due), 1000)).toBe("woken");
    // The loop found nothing to send and asks for the same time again: it must still be woken.
    expect(await within(pacer!.wakeAt(due), 1000)).toBe("woken");
    expect(await within(pacer!.wakeAt(due - 5), 1000)).toBe("woken");
  });

  it("wakes at a postponed time, not the first one", async () => {
    pacer = await Pacer.start({ wake: path });
    const first = performance.now() + 10;
    const wake = pacer!.wakeAt(first);
    pacer!.postpone(first + 40);
    await wake;
    expect(performance.now()).toBeGreaterThanOrEqual(first + 40);
  });

  it("serves a request postponed after the thread has already woken the loop", async () => {
    pacer = await Pacer.start({ wake: path });
    const first = performance.now() + 5;
    const wake = pacer!.wakeAt(first);
    // Give the thread time to serve the first request before the loop has seen it resolve.
    const until = performance.now() + 30;
    while (performance.now() < until) {}
    pacer!.postpone(performance.now() + 10);
    await wake;
    expect(await within(pacer!.wakeAt(performance.now() + 10), 1000)).toBe("woken");
  });

  it("serves a long run of wake-ups in order, each at or after its time, none lost", async () => {
    pacer = await Pacer.start({ wake: path });
    let lost = 0;
    let due = performance.now() + 2;
    for (let i = 0; i < 300; i++) {
      due += 0.25 + (i % 7) * 0.1;
      if ((await within(pacer!.wakeAt(due), 1000)) === "lost") lost++;
      expect(performance.now()).toBeGreaterThanOrEqual(due);
    }
    expect(lost).toBe(0);
  });

  it("sleeps towards the hint after a wake-up, so a request at or after it wakes no one", async () => {
    pacer = await Pacer.start({ wake: path });
    const notify = vi.spyOn(Atomics, "notify");
    try {
      let due = performance.now() + 5;
      for (let i = 0; i < 40; i++) {
        const next = due + 15;
        expect(await within(pacer!.wakeAt(due, next), 1000)).toBe("woken");
        expect(performance.now()).toBeGreaterThanOrEqual(due);
        due = next;
      }
      // The first request wakes the idle thread; after that each is found by a thread already
      // sleeping towards it (a test process held up past a hint would add one each time).
      expect(notify.mock.calls.length).toBeLessThanOrEqual(4);
    } finally {
      notify.mockRestore();
    }
  });

  it("still wakes the loop for a request earlier than the hint said", async () => {
    pacer = await Pacer.start({ wake: path });
    await pacer!.wakeAt(performance.now() + 2, performance.now() + 60_000);
    const due = performance.now() + 10;
    expect(await within(pacer!.wakeAt(due), 1000)).toBe("woken");
    expect(performance.now()).toBeGreaterThanOrEqual(due);
  });

  it("releases a waiting loop when closed", async () => {
    pacer = await Pacer.start({ wake: path });
    const pending = pacer!.wakeAt(performance.now() + 60_000);
    pacer!.close();
    expect(await within(pending, 1000)).toBe("woken");
  });
});

describe("the wake-up socket", () => {
  it("takes only the connection that brings its token: strangers connecting first are closed", async () => {
    const closed: Promise<unknown>[] = [];
    const channel = await openWakeChannel(async (address) => {
      // One stranger says nothing, one sends 16 bytes of its own; both are in before the pacer's end.
      for (const junk of ["", "x".repeat(16)]) {
        const stranger = net.connect({ path: address });
        stranger.on("error", () => undefined);
        closed.push(once(stranger, "close"));
        await once(stranger, "connect");
        if (junk) stranger.write(junk);
      }
    });
    expect(channel).not.toBeNull();
    try {
      // What the thread writes to its descriptor reaches the loop's end, and nothing else did.
      const received = once(channel!.reader, "data");
      writeSync(channel!.fd, Buffer.from([7]));
      const [chunk] = (await received) as [Buffer];
      expect([...chunk]).toEqual([7]);
      await Promise.all(closed);
    } finally {
      channel!.close();
    }
  });
});
