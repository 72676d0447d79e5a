/**
 * Open-model arrival times: request n is due at `timeOfMs(n)` after the schedule's start. The
 * rate is constant, or grows linearly from `fromRate` to `rate` over `rampS` and then holds.
 * Times come from the closed form of the cumulative count, so rounding never accumulates.
 */
export class ArrivalSchedule {
  readonly total: number;
  private readonly from: number;
  private readonly slope: number;
  private readonly rampCount: number;

  constructor(
    readonly rate: number,
    readonly durationS: number,
    fromRate?: number,
    readonly rampS = 0,
  ) {
    this.from = fromRate ?? rate;
    const ramp = fromRate !== undefined && rampS > 0 ? rampS : 0;
    this.rampS = ramp;
    this.slope = ramp > 0 ? (rate - this.from) / ramp : 0;
    this.rampCount = ramp > 0 ? ((this.from + rate) / 2) * ramp : 0;
    this.total = Math.floor(this.countAt(durationS) + 1e-9);
  }

  /** Requests due by `t` seconds. */
  countAt(tS: number): number {
    if (this.rampS > 0 && tS <= this.rampS) return this.from * tS + (this.slope * tS * tS) / 2;
    if (this.rampS > 0) return this.rampCount + this.rate * (tS - this.rampS);
    return this.rate * tS;
  }

  /** Requested rate at `t` seconds. */
  rateAt(tS: number): number {
    return this.rampS > 0 && tS < this.rampS ? this.from + this.slope * tS : this.rate;
  }

  /** Due time of request n (0-based) in ms from the start. */
  timeOfMs(n: number): number {
    if (this.rampS > 0 && n < this.rampCount) {
      if (Math.abs(this.slope) < 1e-12) return (n / this.from) * 1000;
      // Solve from·t + slope·t²/2 = n for the smallest t ≥ 0.
      const disc = this.from * this.from + 2 * this.slope * n;
      return ((-this.from + Math.sqrt(Math.max(0, disc))) / this.slope) * 1000;
    }
    if (this.rampS > 0) return (this.rampS + (n - this.rampCount) / this.rate) * 1000;
    return (n / this.rate) * 1000;
  }

  /** Mean requested rate over the schedule. */
  get meanRate(): number {
    return this.durationS > 0 ? this.countAt(this.durationS) / this.durationS : this.rate;
  }
}
