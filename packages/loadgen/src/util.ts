/** Resolve after `ms`, or as soon as `signal` aborts. Never rejects. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** A promise that resolves when `signal` aborts (never, without a signal). */
export function whenAborted(signal?: AbortSignal): Promise<void> {
  if (!signal) return new Promise(() => undefined);
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}

/** Call `fn` about once a second; returns a stop function. */
export function everySecond(fn: () => void): () => void {
  const timer = setInterval(fn, 1000);
  timer.unref?.();
  return () => clearInterval(timer);
}

/** Counts calls in flight and lets the engine wait (bounded) until none are left. */
export class InFlight {
  count = 0;
  private waiters: (() => void)[] = [];

  inc(): void {
    this.count++;
  }

  dec(): void {
    this.count--;
    if (this.count <= 0 && this.waiters.length > 0) {
      const waiters = this.waiters;
      this.waiters = [];
      for (const w of waiters) w();
    }
  }

  /** Resolves true when nothing is in flight, false after `maxMs` or when `signal` aborts first. */
  drained(maxMs: number, signal?: AbortSignal): Promise<boolean> {
    if (this.count <= 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      let settled = false;
      const settle = (ok: boolean) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        resolve(ok);
      };
      const onAbort = () => settle(this.count <= 0);
      const timer = setTimeout(() => settle(this.count <= 0), Math.max(0, maxMs));
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(() => settle(true));
    });
  }
}

/**
 * The rate ceiling every engine's dispatcher obeys: sends are spaced at least `1 / maxRate`
 * apart (a small burst of up to 10 ms worth is allowed so timer granularity does not lower the
 * rate). `reserve()` returns how many ms the caller must wait before sending; 0 means now.
 */
export class RateGate {
  private next = 0;
  private readonly intervalMs: number;
  private readonly burstMs: number;
  constructor(readonly maxRate: number) {
    this.intervalMs = 1000 / maxRate;
    this.burstMs = Math.min(10, this.intervalMs * 10);
  }

  reserve(now = performance.now()): number {
    const earliest = Math.max(this.next, now - this.burstMs);
    this.next = earliest + this.intervalMs;
    return Math.max(0, earliest - now);
  }

  /** Wait for a slot (or until the signal aborts). */
  async wait(signal?: AbortSignal): Promise<void> {
    const ms = this.reserve();
    if (ms >= 1) await sleep(ms, signal);
  }
}
