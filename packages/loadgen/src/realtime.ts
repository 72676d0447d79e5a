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
 * completions meanwhile) no other thread delays them. Not above ~5,000 req/s: there the loop is
 * busy nearly all the time and, at real-time priority, holds off the kernel's own network work
 * on its core (at 10,000 req/s on nginx, p99 went from 1.9 ms to 40–440 ms).
 *
 * Open-model runs do not use it for now (`REALTIME_OFF`): asking for it
 * (`BENCHBOARD_ENGINE_REALTIME=1` on a worker, `benchboard agent --realtime`) is recorded and
 * refused. What follows is kept, with its tests, for when the lost wake-ups are understood.
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
  const args =
    priority === null ? ["--other", "-p", "0", String(tid)] : ["--fifo", "-p", String(priority), String(tid)];
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

/** The SCHED_FIFO priority of the event loop and the pacing thread (the lowest real-time one). */
export const REALTIME_PRIORITY = 1;
/**
 * Why an open-model run asked to run at real-time priority (`EngineContext.realtime`) keeps
 * normal scheduling. The mechanism below works, but with the event loop and pacing thread at
 * SCHED_FIFO the loop sometimes stopped hearing the pacing thread: in about half the runs at
 * 1,000–5,000 req/s (measured on a 2-core machine, engine pinned to one core) a few wake-ups
 * were lost, each holding the sends until the loop's 100 ms check, and once begun the losses
 * went on after the run left real-time. At normal scheduling none were lost.
 */
export const REALTIME_OFF =
  "real-time scheduling is turned off: with it, the pacing thread's wake-ups were lost in about half the runs (measured), each holding the sends for 100–200 ms";

/** Runs holding the event loop at real-time priority (runs in one process share that thread). */
let loopHolders = 0;

export interface RealtimeHold {
  /** "realtime" when both threads got it; otherwise "normal" and why. */
  scheduling: "realtime" | "normal";
  reason?: string;
  release(): void;
}

/** A run left at normal scheduling, and why (nothing to release). */
function normalScheduling(reason: string): RealtimeHold {
  return { scheduling: "normal", reason, release: () => undefined };
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
  if (loopHolders === 0) {
    const refused = setThreadScheduling(loop, REALTIME_PRIORITY);
    if (refused) return normalScheduling(refused);
  }
  loopHolders++;
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    loopHolders--;
    if (loopHolders === 0) setThreadScheduling(loop, null);
  };
  const pacerRefused = setThreadScheduling(pacerThreadId, REALTIME_PRIORITY);
  if (pacerRefused) {
    release();
    return normalScheduling(pacerRefused);
  }
  return { scheduling: "realtime", release };
}
