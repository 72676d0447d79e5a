import { describe, expect, it } from "vitest";
import { type LiveFrame, LiveHub, liveFrame } from "./live-hub";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// The shared live feed with a real clock (50 ms ticks) and a read that counts its calls.
describe("LiveHub", () => {
  it("reads a run once per tick however many viewers follow it, and hands them the same frame", async () => {
    let reads = 0;
    let elapsed = 0;
    const hub = new LiveHub(async () => {
      reads++;
      return { status: "running", elapsedMs: elapsed };
    }, 50);
    const received: LiveFrame[][] = Array.from({ length: 200 }, () => []);
    const stops = received.map((frames) =>
      hub.subscribe("run-1", (frame, changed) => {
        if (frame && changed) frames.push(frame);
      }),
    );
    const writer = setInterval(() => {
      elapsed += 1000;
    }, 50);
    await sleep(520);
    clearInterval(writer);
    for (const stop of stops) stop();
    // About ten ticks in 520 ms (fewer on a loaded machine), not two hundred per tick.
    expect(reads).toBeGreaterThanOrEqual(3);
    expect(reads).toBeLessThanOrEqual(12);
    expect(hub.reads).toBe(reads);
    // Every viewer saw the same frames (the very same bytes).
    const first = received[0]!;
    expect(first.length).toBeGreaterThanOrEqual(3);
    for (const frames of received) expect(frames.map((f) => f.bytes)).toEqual(first.map((f) => f.bytes));
    // Nobody watching: no more reads.
    const after = reads;
    await sleep(200);
    expect(reads).toBe(after);
    expect(hub.viewers).toBe(0);
  });

  it("gives a late viewer the latest state at once, ticks without a new frame when nothing changed, and stops at the end", async () => {
    let status = "running";
    let reads = 0;
    const hub = new LiveHub(async () => {
      reads++;
      return { status };
    }, 50);
    const early: [string | null, boolean][] = [];
    hub.subscribe("run-2", (f, changed) => early.push([f?.id ?? null, changed]));
    await sleep(130);
    const late: [string | null, boolean][] = [];
    hub.subscribe("run-2", (f, changed) => late.push([f?.id ?? null, changed]));
    const running = liveFrame({ status: "running" }).id;
    expect(late[0]).toEqual([running, true]);
    expect(early[0]).toEqual([running, true]);
    expect(early.slice(1).every(([id, changed]) => id === running && !changed)).toBe(true);
    status = "succeeded";
    await sleep(120);
    const done = liveFrame({ status: "succeeded" }).id;
    expect(early.at(-1)).toEqual([done, true]);
    expect(late.at(-1)).toEqual([done, true]);
    const readsAtEnd = reads;
    await sleep(150);
    expect(reads).toBe(readsAtEnd);
  });

  it("keeps viewers through a failed read, and tells them when the run is gone", async () => {
    let mode: "ok" | "down" | "gone" = "down";
    const hub = new LiveHub(async () => {
      if (mode === "down") throw new Error("connection refused");
      return mode === "ok" ? { status: "running" } : null;
    }, 40);
    const seen: string[] = [];
    hub.subscribe("run-3", (f, changed) => seen.push(f ? `frame:${changed}` : `none:${changed}`));
    await sleep(100);
    mode = "ok";
    await sleep(60);
    mode = "gone";
    await sleep(80);
    expect(seen[0]).toBe("none:false");
    expect(seen).toContain("frame:true");
    expect(seen.at(-1)).toBe("none:true");
    expect(hub.viewers).toBe(0);
  });

  it("derives event ids from the state alone, so any process names a state the same way", () => {
    const a = liveFrame({ status: "running", elapsedMs: 1000 } as never);
    const b = liveFrame({ status: "running", elapsedMs: 1000 } as never);
    const c = liveFrame({ status: "running", elapsedMs: 2000 } as never);
    expect(a.id).toBe(b.id);
    expect(a.id).not.toBe(c.id);
    expect(new TextDecoder().decode(a.bytes)).toBe(
      `id: ${a.id}\nevent: run\ndata: {"status":"running","elapsedMs":1000}\n\n`,
    );
  });
});
