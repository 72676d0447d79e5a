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
/**
 * A send this overdue means the loop stalled (the process frozen, the host too busy to run it,
 * a laptop asleep): it and everything else overdue is dropped and counted, never fired at once.
 * 100 ms is where a send stops being an open model's (the run already counts it late, see
 * `LATE_SEND_MS`); at rates below 20/s two intervals, so a timer-paced loop's ordinary lateness
 * never loses a request and what goes out together is at most the schedule's two next sends;
 * at most 2 s, so a slow schedule (or a ramp's first, far-apart sends) still notices a stall.
 * k6's arrival-rate executors count an iteration that cannot start at its time as dropped
 * (`dropped_iterations`, when no VU is free); here the measure is time, since a frozen process
 * has every sender free when it resumes.
 */
export const STALL_MIN_MS = 100;
export const STALL_INTERVALS = 2;
export const STALL_MAX_MS = 2_000;

/** One stall the loop came back from: its overdue sends were dropped, not fired. */
export interface Stall {
  /** When the first dropped send was due, in ms after the schedule's zero. */
  atMs: number;
  /** How overdue that send was when the loop ran again: the stall's length, at least. */
  gapMs: number;
  /** Sends dropped (those overdue at the stall, and those falling due while it was confirmed). */
  dropped: number;
  /** How long the caller took to confirm that sending may go on (0 without one, or when told to stop). */
  confirmMs: number;
}

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
  /** Stalls so far, and the sends each dropped. */
  stalls: () => readonly Stall[];
}

/**
 * Fire requests at their due times. A pacing thread (`Pacer`) wakes the event loop within tens
 * of microseconds of each due time; every wake-up fires everything that is due, so a late
 * wake-up (a busy event loop, GC) sends a short burst instead of shifting the rest of the
 * schedule. `fire` gets the due time and the time it actually fired: engines measure latency
 * from the due time, so the generator's own lateness is never hidden, and record the difference
 * as send lag. Without threads, timers pace it (with their ~1 ms of lateness).
 *
 * A stall is not a late wake-up: once a send is overdue by more than the stall bound
 * (`stallBoundMs`), every overdue send is dropped (`skip` is told of each) and recorded as a
 * `Stall`, so what leaves never exceeds the schedule's rate. With `confirm`, nothing is sent
 * until it answers whether the run may go on (the run may have ended meanwhile); the sends that
 * fall due while it is asked are dropped too, and `false` (or a failure) stops the loop early.
 */
export function startOpenLoop(opts: {
  schedule: ArrivalSchedule;
  /** performance.now() of the schedule's zero; may be in the future. */
  startPerf: number;
  fire: (index: number, dueAt: number, firedAt: number) => void;
  signal?: AbortSignal;
  /** The pacing thread (the caller's, shared by its loops), or null to pace with timers. */
  pacer: Pacer | null;
  /** Told of each send dropped after a stall (it is not fired). */
  skip?: (index: number, dueAt: number) => void;
  /** After a stall: may sending go on? Nothing is sent until it answers. */
  confirm?: (stall: Stall) => Promise<boolean>;
}): OpenLoop {
  const { schedule, startPerf, fire, signal, pacer, skip, confirm } = opts;
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
  /** Set while a stall's confirmation is awaited: nothing is fired. */
  let paused = false;
  const stalls: Stall[] = [];
  let droppedTotal = 0;
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
    resolve({ fired: n - droppedTotal, stoppedEarly });
  };
  const onAbort = () => finish(true);

  /** Drop every send due by `now` (a stall's), telling `skip`; returns how many. */
  const dropOverdue = (now: number): number => {
    const from = n;
    // The first send due after `now`, from the schedule's closed form, then checked exactly.
    let next = Math.min(total, Math.max(n, Math.floor(schedule.countAt(Math.max(0, now - startPerf) / 1000)) - 1));
    while (next < total && startPerf + schedule.timeOfMs(next) <= now) next++;
    while (next > n && startPerf + schedule.timeOfMs(next - 1) > now) next--;
    if (skip) for (let i = from; i < next; i++) skip(i, startPerf + schedule.timeOfMs(i));
    n = next;
    nextDue = startPerf + schedule.timeOfMs(n);
    droppedTotal += next - from;
    return next - from;
  };

  /** A stall: drop what is overdue, and with `confirm`, send nothing until it answers. */
  const onStall = (now: number) => {
    const stall: Stall = { atMs: nextDue - startPerf, gapMs: now - nextDue, dropped: 0, confirmMs: 0 };
    stalls.push(stall);
    stall.dropped += dropOverdue(now);
    if (!confirm || n >= total) return;
    paused = true;
    const askedAt = performance.now();
    const answer = (mayGoOn: boolean) => {
      paused = false;
      if (finished) return;
      if (!mayGoOn) return finish(true);
      stall.confirmMs = performance.now() - askedAt;
      // What fell due while the answer was on its way belongs to the stall too.
      stall.dropped += dropOverdue(performance.now());
      clearTimeout(timer);
      // A pacer wake-up still on its way was asked for before the stall, so it is due already
      // (or the watchdog ticks for it): it resumes the loop, as a second one would not be expected.
      if (Number.isNaN(wakeFor)) tick();
    };
    confirm(stall).then(answer, () => answer(false));
  };

  /** How overdue a send may be before the loop counts itself stalled (see `STALL_MIN_MS`). */
  const stallBoundMs = (index: number): number => {
    const gap = index + 1 < total ? schedule.timeOfMs(index + 1) - schedule.timeOfMs(index) : 0;
    return Math.min(STALL_MAX_MS, Math.max(STALL_MIN_MS, STALL_INTERVALS * gap));
  };

  /** Fire everything due by `now`; returns false once the schedule is exhausted. */
  const fireDue = (now: number): boolean => {
    if (firing || paused) return n < total; // a send's own callbacks re-entered us, or a stall is being confirmed
    firing = true;
    try {
      if (n < total && now - nextDue > stallBoundMs(n)) {
        onStall(now);
        if (paused) return n < total;
      }
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
    // A stall is being confirmed: its answer ticks the loop again.
    if (paused) return;
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
    if (finished || paused || now < nextDue) return;
    if (!fireDue(now)) return finish(false);
    if (!paused && !Number.isNaN(wakeFor) && nextDue - earlyBy > wakeFor) {
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
  return { done, poke, lostWakeups: () => lost, stalls: () => stalls };
}

/** `startOpenLoop` for callers that only wait for it. */
export function runOpenLoop(
  opts: Parameters<typeof startOpenLoop>[0],
): Promise<{ fired: number; stoppedEarly: boolean }> {
  return startOpenLoop(opts).done;
}
