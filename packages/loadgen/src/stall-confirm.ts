import type { Stall } from "./open-loop";

/**
 * After a stall, whether a run may go on sending, asked of the one who knows (the server, or
 * PostgreSQL) until it answers. A connection that was idle while the process was frozen is often
 * gone when it resumes (the server closed it meanwhile), so the first attempt may fail for that
 * alone: failures are asked again every `retryMs` until `timeoutMs` has passed. An answer, a
 * timeout, or `signal` aborting ends it; no answer counts as "no": nothing more is sent for a run
 * not known to be running.
 */
export async function askUntilAnswered(
  ask: () => Promise<boolean>,
  options: { timeoutMs: number; retryMs?: number; signal?: AbortSignal },
): Promise<{ goOn: boolean; error: unknown }> {
  const { timeoutMs, retryMs = 250, signal } = options;
  const deadline = Date.now() + timeoutMs;
  let error: unknown = null;
  while (!signal?.aborted) {
    const left = deadline - Date.now();
    if (left <= 0) break;
    let timer: NodeJS.Timeout | undefined;
    try {
      const goOn = await Promise.race([
        ask(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${Math.round(timeoutMs / 1000)} s`)), left);
        }),
      ]);
      return { goOn, error: null };
    } catch (err) {
      error = err;
    } finally {
      clearTimeout(timer);
    }
    if (deadline - Date.now() <= retryMs) break;
    await new Promise((r) => setTimeout(r, retryMs));
  }
  return {
    goOn: false,
    error: error ?? new Error(signal?.aborted ? "stopped" : `no answer within ${Math.round(timeoutMs / 1000)} s`),
  };
}

/** How often a `StallGuard` looks at the clock: a gap beyond this plus its bound is a stall. */
export const STALL_TICK_MS = 50;

/**
 * The open model's stall discipline for engines without a schedule of their own (closed-loop
 * users, chat senders): the loop frozen longer than `boundMs` (the process stopped, the host too
 * busy, a laptop asleep) is a stall, and after one nothing more is sent until `confirm` answers
 * that the run still runs. The run may have ended on the server meanwhile (a watchdog ends a run
 * whose generator went silent), and a resumed process must not send load for it until a cancel
 * poll happens to come round.
 *
 * A stall is seen two ways: a timer ticking every `STALL_TICK_MS` finds a gap, or a sender asks
 * `mayGo(now)` and finds the last tick too long ago. The second matters: after a freeze the
 * responses that arrived meanwhile are handled before any timer, and each would otherwise start
 * its user's next request at once.
 */
export class StallGuard {
  private last: number;
  private readonly timer: NodeJS.Timeout;
  private confirming: Promise<boolean> | null = null;
  private refused = false;
  private readonly records: Stall[] = [];
  /** When the latest stall was noticed: a send due before then was overdue by that stall. */
  private noticedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly options: {
      /** How long the loop may be frozen before it counts as a stall. */
      boundMs: number;
      /** Asked after a stall: does the run still run? Without it, sending goes on at once. */
      confirm?: (stall: Stall) => Promise<boolean>;
      /** The engine's zero, for the stalls' `atMs`. */
      startPerf: number;
    },
  ) {
    this.last = performance.now();
    this.timer = setInterval(() => this.look(performance.now()), STALL_TICK_MS);
    this.timer.unref();
  }

  /** Told that the loop runs now (e.g. before a start-up burst that is itself no freeze). */
  alive(now: number): void {
    if (now > this.last) this.last = now;
  }

  /**
   * Whether a send may go out now: false while a stall's confirmation is awaited (then wait for
   * `settled()`) or after the run was refused. Finds a stall that `now` reveals.
   */
  mayGo(now: number): boolean {
    this.look(now);
    return this.confirming === null && !this.refused;
  }

  /**
   * A stall the caller found itself (a send overdue by more than its bound): confirmed as one
   * the guard found. `gapMs` is how overdue; `dropped` what the caller dropped for it.
   */
  report(now: number, gapMs: number, dropped = 0): void {
    const latest = this.records.at(-1);
    if (latest && (this.confirming || now - gapMs <= this.noticedAt)) {
      latest.dropped += dropped;
      return;
    }
    this.last = now;
    this.begin(now, { atMs: now - gapMs - this.options.startPerf, gapMs, dropped, confirmMs: 0 });
  }

  /** Resolves true once sending may go on, false if the run is not confirmed to run. */
  settled(): Promise<boolean> {
    if (this.refused) return Promise.resolve(false);
    return this.confirming ?? Promise.resolve(true);
  }

  /** The run was refused after a stall: nothing more may be sent. */
  get stopped(): boolean {
    return this.refused;
  }

  /** The stalls seen so far. */
  stalls(): readonly Stall[] {
    return this.records;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private look(now: number): void {
    const gap = now - this.last;
    if (gap <= STALL_TICK_MS + this.options.boundMs) {
      if (now > this.last) this.last = now;
      return;
    }
    this.last = now;
    if (this.confirming || this.refused) return;
    this.begin(now, { atMs: now - gap - this.options.startPerf, gapMs: gap, dropped: 0, confirmMs: 0 });
  }

  private begin(now: number, stall: Stall): void {
    this.records.push(stall);
    this.noticedAt = now;
    const { confirm } = this.options;
    if (!confirm || this.refused) return;
    const askedAt = performance.now();
    this.confirming = confirm(stall).then(
      (goOn) => goOn,
      () => false,
    );
    void this.confirming.then((goOn) => {
      stall.confirmMs = performance.now() - askedAt;
      if (!goOn) this.refused = true;
      this.confirming = null;
      // Clock gaps while the answer was awaited were the answer's wait, not a stall.
      this.last = performance.now();
    });
  }
}
