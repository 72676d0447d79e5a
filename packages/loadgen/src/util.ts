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
