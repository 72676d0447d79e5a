import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { STALL_MIN_MS, startOpenLoop } from "./open-loop";
import { Pacer, spinUntil } from "./pacer";
import { ArrivalSchedule } from "./schedule";

let pacer: Pacer | null = null;
beforeAll(async () => {
  pacer = await Pacer.start();
});
afterAll(() => pacer?.close());

function collect(schedule: ArrivalSchedule, startPerf: number) {
  const fired: { n: number; dueAt: number; firedAt: number }[] = [];
  const skipped: number[] = [];
  const loop = startOpenLoop({
    schedule,
    startPerf,
    pacer,
    fire: (n, dueAt, firedAt) => fired.push({ n, dueAt, firedAt }),
    skip: (n) => skipped.push(n),
  });
  return { fired, skipped, loop };
}

describe("open loop", () => {
  it("fires every request once, in order, at the schedule's intended times (fixed rate)", async () => {
    const schedule = new ArrivalSchedule(1000, 0.3);
    const start = performance.now() + 5;
    const { fired, skipped, loop } = collect(schedule, start);
    const r = await loop.done;
    // A host too busy to run the loop for 100 ms makes it drop what fell due meanwhile (see the
    // stall tests below); everything else is fired, once and in order.
    const dropped = new Set(skipped);
    expect(r).toEqual({ fired: 300 - dropped.size, stoppedEarly: false });
    expect(fired.map((f) => f.n)).toEqual([...Array(300).keys()].filter((n) => !dropped.has(n)));
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
      const { fired, skipped, loop } = collect(schedule, performance.now() + 5);
      await loop.done;
      expect(fired.length + skipped.length).toBe(100);
      expect(notify.mock.calls.length).toBeLessThan(20);
    } finally {
      notify.mockRestore();
    }
  });

  it("paces with timers when there is no pacing thread", async () => {
    const schedule = new ArrivalSchedule(200, 0.2);
    const start = performance.now() + 5;
    const fired: number[] = [];
    const skipped: number[] = [];
    const loop = startOpenLoop({
      schedule,
      startPerf: start,
      pacer: null,
      fire: (n, dueAt, firedAt) => {
        expect(firedAt).toBeGreaterThanOrEqual(dueAt);
        fired.push(n);
      },
      skip: (n) => skipped.push(n),
    });
    // Less what a stall of the busy host dropped, if any (see below).
    expect(await loop.done).toEqual({ fired: 40 - skipped.length, stoppedEarly: false });
    expect(fired).toEqual([...Array(40).keys()].filter((n) => !skipped.includes(n)));
  });

  it("follows a ramp's intended times", async () => {
    const schedule = new ArrivalSchedule(400, 0.4, 100, 0.2);
    const start = performance.now() + 5;
    const { fired, skipped, loop } = collect(schedule, start);
    await loop.done;
    expect(fired.length + skipped.length).toBe(schedule.total);
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

describe("open loop after a stall", () => {
  /** Hold the event loop (as a frozen process or a busy host would) for `ms`, `afterMs` from now. */
  const stallLoop = (afterMs: number, ms: number) =>
    new Promise<number>((resolve) =>
      setTimeout(() => {
        spinUntil(performance.now() + ms);
        resolve(performance.now());
      }, afterMs),
    );

  it("drops the overdue sends and counts them instead of firing them at once", async () => {
    const schedule = new ArrivalSchedule(200, 1.2);
    const start = performance.now() + 5;
    const dropped: number[] = [];
    const fired: { n: number; dueAt: number; firedAt: number }[] = [];
    const loop = startOpenLoop({
      schedule,
      startPerf: start,
      pacer,
      fire: (n, dueAt, firedAt) => fired.push({ n, dueAt, firedAt }),
      skip: (n) => dropped.push(n),
    });
    const resumedAt = await stallLoop(300, 400);
    const r = await loop.done;
    const [stall, ...more] = loop.stalls();
    expect(more).toEqual([]);
    // About 400 ms of a 200/s schedule (80 sends) dropped, each exactly once, none fired.
    expect(stall!.dropped).toBeGreaterThanOrEqual(60);
    expect(stall!.dropped).toBeLessThanOrEqual(100);
    expect(stall!.gapMs).toBeGreaterThan(STALL_MIN_MS);
    expect(dropped.length).toBe(stall!.dropped);
    expect(new Set([...dropped, ...fired.map((f) => f.n)]).size).toBe(schedule.total);
    expect(r.fired + stall!.dropped).toBe(schedule.total);
    // What was fired after the stall was due after it: no burst of overdue sends.
    const afterwards = fired.filter((f) => f.firedAt >= resumedAt);
    expect(afterwards.length).toBeGreaterThan(50);
    for (const f of afterwards) expect(f.firedAt - f.dueAt).toBeLessThan(STALL_MIN_MS);
  });

  it("with a confirmation, sends nothing until it answers, and stops when told the run ended", async () => {
    for (const mayGoOn of [true, false]) {
      const schedule = new ArrivalSchedule(200, 1.2);
      const fired: number[] = [];
      let asked = Number.NaN;
      let answered = Number.NaN;
      const loop = startOpenLoop({
        schedule,
        startPerf: performance.now() + 5,
        pacer,
        fire: (_n, _dueAt, firedAt) => fired.push(firedAt),
        confirm: () => {
          asked = performance.now();
          return new Promise((resolve) =>
            setTimeout(() => {
              answered = performance.now();
              resolve(mayGoOn);
            }, 150),
          );
        },
      });
      await stallLoop(300, 300);
      const r = await loop.done;
      expect(asked).toBeGreaterThan(0);
      expect(fired.filter((t) => t > asked && t < answered)).toEqual([]);
      expect(r.stoppedEarly).toBe(!mayGoOn);
      const after = fired.filter((t) => t >= answered);
      if (mayGoOn) {
        // The 150 ms of the confirmation were dropped too; the rest of the schedule was sent.
        expect(loop.stalls()[0]!.dropped).toBeGreaterThanOrEqual(60);
        expect(after.length).toBeGreaterThan(50);
      } else expect(after).toEqual([]);
    }
  });
});
