import type { ArrivalSchedule } from "./schedule";

/**
 * Fire requests at their due times. Each timer wakeup fires everything that is due, so a late
 * wakeup (timer granularity, GC, a busy event loop) sends a short burst instead of shifting the
 * rest of the schedule; the lateness shows up in latency, which engines measure from `dueAt`.
 */
export function runOpenLoop(opts: {
  schedule: ArrivalSchedule;
  /** performance.now() of the schedule's zero; may be in the future. */
  startPerf: number;
  fire: (index: number, dueAt: number) => void;
  signal?: AbortSignal;
}): Promise<{ fired: number; stoppedEarly: boolean }> {
  const { schedule, startPerf, fire, signal } = opts;
  const total = schedule.total;
  return new Promise((resolve) => {
    let n = 0;
    let timer: NodeJS.Timeout | undefined;
    let finished = false;
    const finish = (stoppedEarly: boolean) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolve({ fired: n, stoppedEarly });
    };
    const onAbort = () => finish(true);
    if (signal?.aborted) return finish(true);
    signal?.addEventListener("abort", onAbort, { once: true });
    const tick = () => {
      if (finished) return;
      const elapsed = performance.now() - startPerf;
      let next = schedule.timeOfMs(n);
      while (n < total && next <= elapsed) {
        fire(n, startPerf + next);
        n++;
        next = schedule.timeOfMs(n);
      }
      if (n >= total) return finish(false);
      timer = setTimeout(tick, Math.max(0, next - (performance.now() - startPerf)));
    };
    timer = setTimeout(tick, Math.max(0, startPerf - performance.now()));
  });
}
