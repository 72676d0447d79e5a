import { describe, expect, it } from "vitest";
import { CpuRate } from "./index";

describe("CpuRate", () => {
  it("turns a monotonic CPU-seconds counter into cores over real elapsed time", () => {
    const cpu = new CpuRate(2);
    expect(cpu.next(10, 0)).toBeNull();
    expect(cpu.next(10.5, 1000)).toBeCloseTo(0.5, 10);
    expect(cpu.next(11.5, 2000)).toBeCloseTo(1, 10);
  });

  it("never reads above the host's cores, and folds readings that come too close together", () => {
    // A single-threaded process on a 2-core host: a tick-sized jump over a short span is not 3.5 cores.
    const cpu = new CpuRate(2);
    cpu.next(0, 0);
    expect(cpu.next(0.99, 1000)).toBeCloseTo(0.99, 10);
    // 35 ms of CPU counted within 10 ms of wall time (3.5 "cores"): folded, the previous rate stands.
    expect(cpu.next(1.025, 1010)).toBeCloseTo(0.99, 10);
    // The next span covers both, so nothing is lost and there is no 0 beside a spike.
    expect(cpu.next(1.99, 2000)).toBeCloseTo((1.99 - 0.99) / 1, 10);
    // A counter that somehow outruns the wall clock is capped at the cores there are.
    expect(cpu.next(9, 3000)).toBe(2);
  });

  it("starts over when the counter goes backwards (a restarted process)", () => {
    const cpu = new CpuRate();
    cpu.next(100, 0);
    expect(cpu.next(1, 1000)).toBeNull();
    expect(cpu.next(1.25, 2000)).toBeCloseTo(0.25, 10);
    expect(cpu.next(null, 3000)).toBeNull();
  });
});
