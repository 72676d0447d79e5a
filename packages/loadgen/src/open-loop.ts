import { type Pacer, spinUntil } from "./pacer";
import type { ArrivalSchedule } from "./schedule";

/** Beyond this, the next send is far enough away for an ordinary timer to wake us near it. */
const COARSE_WAIT_MS = 20;
/** How much before the due time the coarse timer aims, covering its own lateness. */
const COARSE_MARGIN_MS = 5;
/**
 * The pacer's wake-up reaches the event loop some tens of microseconds after the thread sends it
 * (a futex wake, then libuv's poll returning and the promise job running). The loop therefore
 * asks to be woken that much early and spins the rest: `lead` tracks the 75th percentile of the
 * observed wake-up delay (a step up of 3 µs when a wake-up came later than the lead, down 1 µs
 * otherwise), so about three sends in four leave on time to the microsecond for a few tens of
 * microseconds of spinning each, and the spin never exceeds `MAX_LEAD_MS`.
 */
const INITIAL_LEAD_MS = 0.05;
const MAX_LEAD_MS = 0.25;
const LEAD_UP_MS = 0.003;
const LEAD_DOWN_MS = 0.001;
/**
 * The early wake-up and spin are for sends far enough apart that the loop is otherwise idle
 * between them. Closer together (above ~6,600/s) most sends leave from completions anyway, and
 * a spin would hold up the responses arriving meanwhile (and their timestamps); so would any
 * spinning beyond `SPIN_BUDGET` of a second, after which the rest of that second's wake-ups
 * are asked for on time.
 */
const MIN_SPIN_GAP_MS = 0.15;
const SPIN_BUDGET = 0.1;
/**
 * A pacer wake-up this overdue is taken as lost and the loop is ticked by a timer instead: the
 * run then shows the lateness as send lag rather than hanging on a wake-up that never comes.
 * (A shorter check does not help: ticking while the real wake-up is still on its way leaves two
 * wake-ups pending, which the pacer's protocol does not expect, and measured worse.)
 */
const LOST_WAKEUP_MS = 100;

export interface OpenLoop {
  /** Resolves when every request has been fired, or the signal aborted. */
  done: Promise<{ fired: number; stoppedEarly: boolean }>;
  /**
   * Fire whatever is due now. Engines call it from their completion callbacks: at high rates a
   * response lands between almost every two sends, so most sends leave from there, on time,
   * without a wake-up of their own.
   */
  poke: (nowPerf: number) => void;
  /** Pacer wake-ups taken as lost (overdue by more than `LOST_WAKEUP_MS`), so far. */
  lostWakeups: () => number;
}

/**
 * Fire requests at their due times. A pacing thread (`Pacer`) wakes the event loop within tens
 * of microseconds of each due time; every wake-up fires everything that is due, so a late
 * wake-up (a busy event loop, GC) sends a short burst instead of shifting the rest of the
 * schedule. `fire` gets the due time and the time it actually fired: engines measure latency
 * from the due time, so the generator's own lateness is never hidden, and record the difference
 * as send lag. Without threads, timers pace it (with their ~1 ms of lateness).
 */
export function startOpenLoop(opts: {
  schedule: ArrivalSchedule;
  /** performance.now() of the schedule's zero; may be in the future. */
  startPerf: number;
  fire: (index: number, dueAt: number, firedAt: number) => void;
  signal?: AbortSignal;
  /** The pacing thread (the caller's, shared by its loops), or null to pace with timers. */
  pacer: Pacer | null;
}): OpenLoop {
  const { schedule, startPerf, fire, signal, pacer } = opts;
  const total = schedule.total;
  let n = 0;
  let lead = INITIAL_LEAD_MS;
  /** How early the pending wake-up was asked for (the lead, or 0 when not spinning). */
  let earlyBy = 0;
  /** The due time of the last request fired. */
  let lastDue = Number.NEGATIVE_INFINITY;
  /** Time spent spinning in the current second of `spinSecond`. */
  let spunMs = 0;
  let spinSecond = -1;
  /** The time the pacer was last asked to wake us (NaN when the next wake-up is a timer's). */
  let wakeFor = Number.NaN;
  let nextDue = startPerf + schedule.timeOfMs(0);
  let finished = false;
  let firing = false;
  let timer: NodeJS.Timeout | undefined;
  let resolve!: (r: { fired: number; stoppedEarly: boolean }) => void;
  const done = new Promise<{ fired: number; stoppedEarly: boolean }>((r) => {
    resolve = r;
  });

  const finish = (stoppedEarly: boolean) => {
    if (finished) return;
    finished = true;
    clearTimeout(timer);
    clearInterval(watchdog);
    signal?.removeEventListener("abort", onAbort);
    resolve({ fired: n, stoppedEarly });
  };
  const onAbort = () => finish(true);

  /** Fire everything due by `now`; returns false once the schedule is exhausted. */
  const fireDue = (now: number): boolean => {
    if (firing) return n < total; // a send's own callbacks re-entered us
    firing = true;
    try {
      while (n < total && nextDue <= now) {
        fire(n, nextDue, now);
        lastDue = nextDue;
        n++;
        nextDue = startPerf + schedule.timeOfMs(n);
      }
    } finally {
      firing = false;
    }
    return n < total;
  };

  const tick = () => {
    if (finished) return;
    let now = performance.now();
    if (!Number.isNaN(wakeFor)) {
      // How late the pacer's wake-up reached us: adjust the lead towards that delay's p75.
      lead = now - wakeFor > lead ? Math.min(MAX_LEAD_MS, lead + LEAD_UP_MS) : Math.max(0, lead - LEAD_DOWN_MS);
      wakeFor = Number.NaN;
      // Woken early on purpose: spin the last microseconds (bounded, so a moved due time can't hold us).
      if (nextDue > now && nextDue - now <= MAX_LEAD_MS) {
        const spinFrom = now;
        now = spinUntil(nextDue);
        spunMs += now - spinFrom;
      }
    }
    if (!fireDue(now)) return finish(false);
    const wait = nextDue - performance.now();
    if (pacer && wait <= COARSE_WAIT_MS) {
      const second = Math.floor(now / 1000);
      if (second !== spinSecond) {
        spinSecond = second;
        spunMs = 0;
      }
      earlyBy = nextDue - lastDue >= MIN_SPIN_GAP_MS && spunMs < SPIN_BUDGET * 1000 ? lead : 0;
      wakeFor = nextDue - earlyBy;
      void pacer.wakeAt(wakeFor, nextWakeAtLeast()).then(tick);
    } else {
      // Far off (or no pacer): a timer, aimed early enough that the pacer takes over in time.
      const margin = pacer ? COARSE_MARGIN_MS : 0;
      timer = setTimeout(tick, Math.max(0, wait - margin));
    }
  };

  /**
   * Where the wake-up after the one being asked for will fall at the earliest, for the pacing
   * thread to sleep towards (`Pacer.wakeAt`): the next request's due time, less as much lead as
   * it can then have (the lead grows by one step a wake-up at most). Only a hint: a request
   * earlier than it still wakes the thread. Given where sends are far enough apart for the loop
   * to idle between them (`MIN_SPIN_GAP_MS`), as in the early wake-up: closer together most
   * sends leave from completions, and measured at 10,000 req/s the hint saved 4 µs of CPU per
   * request but p99 was higher in 4 of 5 pairs and fewer runs valid (bench/README.md).
   */
  const nextWakeAtLeast = (): number => {
    if (n + 1 >= total) return Number.NaN;
    const following = startPerf + schedule.timeOfMs(n + 1);
    return following - nextDue >= MIN_SPIN_GAP_MS ? following - Math.min(MAX_LEAD_MS, lead + LEAD_UP_MS) : Number.NaN;
  };

  const poke = (now: number) => {
    if (finished || now < nextDue) return;
    if (!fireDue(now)) return finish(false);
    if (!Number.isNaN(wakeFor) && nextDue - earlyBy > wakeFor) {
      wakeFor = nextDue - earlyBy;
      pacer?.postpone(wakeFor);
    }
  };

  let lost = 0;
  const watchdog = setInterval(() => {
    if (!finished && !Number.isNaN(wakeFor) && performance.now() - wakeFor > LOST_WAKEUP_MS) {
      lost++;
      tick();
    }
  }, LOST_WAKEUP_MS);
  watchdog.unref?.();

  if (signal?.aborted) finish(true);
  else {
    signal?.addEventListener("abort", onAbort, { once: true });
    tick();
  }
  return { done, poke, lostWakeups: () => lost };
}

/** `startOpenLoop` for callers that only wait for it. */
export function runOpenLoop(
  opts: Parameters<typeof startOpenLoop>[0],
): Promise<{ fired: number; stoppedEarly: boolean }> {
  return startOpenLoop(opts).done;
}
