import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startOpenLoop } from "./open-loop";
import { Pacer } from "./pacer";
import { ArrivalSchedule } from "./schedule";

let pacer: Pacer | null = null;
beforeAll(async () => {
  pacer = await Pacer.start();
});
afterAll(() => pacer?.close());

function collect(schedule: ArrivalSchedule, startPerf: number) {
  const fired: { n: number; dueAt: number; firedAt: number }[] = [];
  const loop = startOpenLoop({
    schedule,
    startPerf,
    pacer,
    fire: (n, dueAt, firedAt) => fired.push({ n, dueAt, firedAt }),
  });
  return { fired, loop };
}

describe("open loop", () => {
  it("fires every request once, in order, at the schedule's intended times (fixed rate)", async () => {
    const schedule = new ArrivalSchedule(1000, 0.3);
    const start = performance.now() + 5;
    const { fired, loop } = collect(schedule, start);
    const r = await loop.done;
    expect(r).toEqual({ fired: 300, stoppedEarly: false });
    expect(fired.map((f) => f.n)).toEqual([...Array(300).keys()]);
    for (const f of fired) {
      expect(f.dueAt).toBeCloseTo(start + f.n, 9);
      // Never early; the lateness is the caller's to record.
      expect(f.firedAt).toBeGreaterThanOrEqual(f.dueAt);
    }
  });

  it("tells the pacing thread where the next request will be, so a steady rate needs no notifies", async () => {
    const notify = vi.spyOn(Atomics, "notify");
    try {
      // 100 sends 5 ms apart, each on time: without the hint, every one would notify the thread.
      const schedule = new ArrivalSchedule(200, 0.5);
      const { fired, loop } = collect(schedule, performance.now() + 5);
      await loop.done;
      expect(fired.length).toBe(100);
      expect(notify.mock.calls.length).toBeLessThan(20);
    } finally {
      notify.mockRestore();
    }
  });

  it("paces with timers when there is no pacing thread", async () => {
    const schedule = new ArrivalSchedule(200, 0.2);
    const start = performance.now() + 5;
    const fired: number[] = [];
    const loop = startOpenLoop({
      schedule,
      startPerf: start,
      pacer: null,
      fire: (n, dueAt, firedAt) => {
        expect(firedAt).toBeGreaterThanOrEqual(dueAt);
        fired.push(n);
      },
    });
    expect(await loop.done).toEqual({ fired: 40, stoppedEarly: false });
    expect(fired).toEqual([...Array(40).keys()]);
  });

  it("follows a ramp's intended times", async () => {
    const schedule = new ArrivalSchedule(400, 0.4, 100, 0.2);
    const start = performance.now() + 5;
    const { fired, loop } = collect(schedule, start);
    await loop.done;
    expect(fired.length).toBe(schedule.total);
    for (const f of fired) expect(f.dueAt).toBeCloseTo(start + schedule.timeOfMs(f.n), 9);
  });

  it("sends what is due when poked from a completion, before any wake-up", async () => {
    const schedule = new ArrivalSchedule(10, 1);
    const start = performance.now() + 1000;
    const { fired, loop } = collect(schedule, start);
    loop.poke(start - 1);
    expect(fired.length).toBe(0);
    loop.poke(start + 150);
    expect(fired.map((f) => f.n)).toEqual([0, 1]);
    expect(fired[1]!.firedAt).toBe(start + 150);
    await loop.done;
    expect(fired.length).toBe(10);
  });

  it("stops when aborted and says so", async () => {
    const controller = new AbortController();
    const schedule = new ArrivalSchedule(100, 10);
    const loop = startOpenLoop({
      schedule,
      startPerf: performance.now(),
      fire: () => undefined,
      signal: controller.signal,
      pacer,
    });
    setTimeout(() => controller.abort(), 100);
    const r = await loop.done;
    expect(r.stoppedEarly).toBe(true);
    expect(r.fired).toBeLessThan(100);
  });
});
