import { execFileSync } from "node:child_process";
import { readlinkSync } from "node:fs";

/**
 * Real-time scheduling for the open model's two timing-critical threads, on Linux, where the
 * process may have it (root, CAP_SYS_NICE, or an RLIMIT_RTPRIO of at least 1).
 *
 * Under the kernel's fair scheduler a runnable thread can wait milliseconds for its core while
 * another thread holds it (EEVDF lets the running one finish its slice), and a load generator
 * counts that wait as the target's latency: on nginx at 1,000 req/s, with the engine on one
 * core, the slowest 1 % of requests were sends 2–4 ms late while the event loop had nothing of
 * its own to do. With the event loop and the pacing thread at SCHED_FIFO (the same priority, so
 * neither preempts the other: the pacer's wake-up waits for a busy loop, which sends from its
 * completions meanwhile) no other thread delays them. The pacing thread must then wake the loop
 * through its socket (pacer.ts): the `Atomics.waitAsync` path lost wake-ups at real-time priority.
 *
 * Not above `REALTIME_MAX_RATE`: there the loop is busy nearly all the time, and a real-time
 * thread that busy is throttled by the kernel (which keeps 5 % of each second for other tasks)
 * and holds off the kernel's own network work on its core: at 10,000 req/s on nginx, p99 went
 * from ~2 ms to 4–440 ms (measured). Nor where it sends later than at normal scheduling: on a
 * 50 ms server at 5,000 req/s (250 connections, more garbage to collect, V8's collector threads
 * held off by the real-time loop) send lag p99 was 4–5 ms against 0.3–0.5 at normal scheduling,
 * and p99 56–76 ms against 52–62. A run whose sends come late leaves real-time
 * (`guardRealtime`), and its result says when and why.
 */

/** The kernel's id of the calling thread, or null off Linux. */
export function currentThreadId(): number | null {
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
    return Number.isInteger(tid) && tid > 0 ? tid : null;
  } catch {
    return null;
  }
}

/** Put a thread in SCHED_FIFO at `priority`, or back to SCHED_OTHER (null); returns why not, or null. */
export function setThreadScheduling(tid: number, priority: number | null): string | null {
  return chrt(
    priority === null ? ["--other", "-p", "0", String(tid)] : ["--fifo", "-p", String(priority), String(tid)],
  );
}

/** Run `chrt` (util-linux) on a thread; returns why it failed, or null. */
function chrt(args: string[]): string | null {
  try {
    execFileSync("chrt", args, { stdio: ["ignore", "ignore", "pipe"], timeout: 5_000 });
    return null;
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { stderr?: Buffer };
    if (e.code === "ENOENT") return "chrt (util-linux) is not installed";
    const detail = e.stderr?.toString().trim() ?? e.message;
    return /not permitted/i.test(detail)
      ? "not permitted (needs root, CAP_SYS_NICE or an RLIMIT_RTPRIO of 1)"
      : detail.split("\n")[0] || "chrt failed";
  }
}

/**
 * Holders of a setting the runs in one process share (the loop's real-time priority): `add`
 * counts one more and returns its release, which may be called more than once and runs `last`
 * when the last holder lets go.
 */
class SharedHold {
  private count = 0;

  get held(): boolean {
    return this.count > 0;
  }

  add(last: () => void): () => void {
    this.count++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.count--;
      if (this.count === 0) last();
    };
  }
}

/** How long a run waits for a starting pacing thread to say who it is. */
const PACING_THREAD_ID_WAIT_MS = 2_000;

/**
 * A pacing thread's kernel id (it reports it as it starts, within milliseconds), or null if it
 * has not within `PACING_THREAD_ID_WAIT_MS`. The give-up timer is unref'd: it must not keep a
 * finished process alive.
 */
export function pacingThreadId(tid: Promise<number | null>): Promise<number | null> {
  return Promise.race([tid, new Promise<null>((r) => setTimeout(() => r(null), PACING_THREAD_ID_WAIT_MS).unref())]);
}

/** The SCHED_FIFO priority of the event loop and the pacing thread (the lowest real-time one). */
export const REALTIME_PRIORITY = 1;
/** Runs of a higher peak rate (per worker or shard) keep normal scheduling; see above. */
export const REALTIME_MAX_RATE = 5_000;
/**
 * The real-time guard's bound: a run leaves real-time once more than `REALTIME_LATE_SHARE` of
 * its sends in half a second (or of at least 100, at low rates) left later than this after their
 * due time. Real-time sends leave within ~0.1 ms (p99); normal scheduling's p99 is 0.2–0.5 ms,
 * so this many late sends mean real-time priority is making things worse, not better.
 */
export const REALTIME_LATE_MS = 1;
export const REALTIME_LATE_SHARE = 0.01;

/** Runs holding the event loop at real-time priority (runs in one process share that thread). */
const loopHolders = new SharedHold();

export interface RealtimeHold {
  /** "realtime" when both threads got it; otherwise "normal" and why. */
  scheduling: "realtime" | "normal";
  reason?: string;
  release(): void;
  /** Give real-time up mid-run (both threads); returns the hold to report from then on. */
  leave(reason: string): RealtimeHold;
}

/** A run left at normal scheduling, and why (nothing to release). */
export function normalScheduling(reason: string): RealtimeHold {
  const hold: RealtimeHold = { scheduling: "normal", reason, release: () => undefined, leave: () => hold };
  return hold;
}

/**
 * Raise the event loop and the pacing thread for a run; `release` puts the loop back when the
 * process's last such run ends. A refusal (or an unknown pacing thread) leaves everything as it
 * was, so a run reported "normal" never ran with a real-time loop.
 */
export function holdRealtime(pacerThreadId: number | null): RealtimeHold {
  const loop = currentThreadId();
  if (loop === null) return normalScheduling("not on Linux");
  if (pacerThreadId === null) return normalScheduling("the pacing thread's id is unknown");
  if (!loopHolders.held) {
    const refused = setThreadScheduling(loop, REALTIME_PRIORITY);
    if (refused) return normalScheduling(refused);
  }
  const release = loopHolders.add(() => {
    setThreadScheduling(loop, null);
  });
  const pacerRefused = setThreadScheduling(pacerThreadId, REALTIME_PRIORITY);
  if (pacerRefused) {
    release();
    return normalScheduling(pacerRefused);
  }
  const leave = (reason: string) => {
    setThreadScheduling(pacerThreadId, null);
    release();
    return normalScheduling(reason);
  };
  return { scheduling: "realtime", release, leave };
}

/** How often `guardRealtime` looks. */
const GUARD_INTERVAL_MS = 500;
/** Fewer sends than this are too few to judge by: a look with fewer waits for the next ones. */
const GUARD_MIN_SENDS = 100;

/**
 * Watch a real-time run's sends (`watch` is counted by the engine: every send, and those later
 * than `REALTIME_LATE_MS`): once more than `REALTIME_LATE_SHARE` of a half second's sends (or of
 * the last `GUARD_MIN_SENDS` or more, at low rates) were late, leave real-time (see above) and
 * hand the new hold to `left`. Returns the stop.
 */
export function guardRealtime(
  hold: RealtimeHold,
  watch: Readonly<{ sends: number; late: number }>,
  left: (hold: RealtimeHold) => void,
): () => void {
  if (hold.scheduling !== "realtime") return () => undefined;
  const startedAt = performance.now();
  let since = startedAt;
  let sends = watch.sends;
  let late = watch.late;
  const timer = setInterval(() => {
    const now = performance.now();
    const newSends = watch.sends - sends;
    const newLate = watch.late - late;
    // Below ~200 req/s half a second holds too few sends: they add up over several looks.
    if (newSends < GUARD_MIN_SENDS) return;
    const spanS = (now - since) / 1000;
    since = now;
    sends = watch.sends;
    late = watch.late;
    if (newLate <= newSends * REALTIME_LATE_SHARE) return;
    clearInterval(timer);
    left(
      hold.leave(
        `left real-time after ${((now - startedAt) / 1000).toFixed(1)} s: ${newLate} of ${newSends} sends in ${spanS.toFixed(1)} s left more than ${REALTIME_LATE_MS} ms late (above ${REALTIME_LATE_SHARE * 100} %), worse than normal scheduling sends`,
      ),
    );
  }, GUARD_INTERVAL_MS);
  timer.unref?.();
  return () => clearInterval(timer);
}
