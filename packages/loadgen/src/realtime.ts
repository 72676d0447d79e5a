import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import os from "node:os";

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

/** Field `field` (numbered as in proc(5)) of a thread's /proc stat line, or null once it has exited. */
function threadStatField(tid: number, field: number): number | null {
  try {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
    // Counted from after the command name, which may hold spaces: field 3 is the first there.
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[field - 3]);
  } catch {
    return null;
  }
}

/** A thread's scheduling policy (proc(5) field 41), or null once it has exited. */
export function threadPolicy(tid: number): number | null {
  return threadStatField(tid, 41);
}

/**
 * Holders of a setting the runs in one process share (the loop's real-time priority, its slice,
 * the helper threads' idle priority): `add` counts one more and returns its release, which may be
 * called more than once and runs `last` when the last holder lets go.
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

/** proc(5)'s policy number of SCHED_IDLE. */
export const SCHED_IDLE = 5;
/** proc(5)'s policy number of SCHED_BATCH. */
export const SCHED_BATCH = 3;

/** The pacing threads alive in this process, by their pacer: their kernel ids as they report them. */
const pacingThreads = new Map<object, Promise<number | null>>();

/** A pacing thread started (`owner` is its pacer): `idleHelperThreads` leaves it alone until `forgetPacingThread`. */
export function keepPacingThread(owner: object, tid: Promise<number | null>): void {
  pacingThreads.set(owner, tid);
}

export function forgetPacingThread(owner: object): void {
  pacingThreads.delete(owner);
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

/**
 * Runs of a higher peak rate (per worker or shard) do not idle the helper threads: there the loop
 * is busy nearly all the time, and the collector's helpers, held to its idle moments, fell behind
 * (on the 50 ms server at 10,000 req/s, 1,000 connections: longest collection pause 4.4–8.3 ms
 * against 3.0–4.0, send lag p99 1.6–2.0 ms against 0.8–1.2, CPU per request +6 %).
 */
export const IDLE_HELPERS_MAX_RATE = 5_000;

export interface HelperThreads {
  /** "idle" when the process's other threads ran at SCHED_IDLE; otherwise "normal" and why. */
  helperThreads: "idle" | "normal";
  note?: string;
  /** The run has ended: the last to end puts the threads back where the process may. */
  release(): void;
}

/** Runs in progress that idled the helper threads. */
const helperHolders = new SharedHold();
/** Threads this process put at SCHED_IDLE and has not (yet) been able to put back. */
const idledThreads = new Set<number>();

/**
 * Put every thread of the process but the event loop and the pacing threads at SCHED_IDLE: V8's
 * garbage-collector and compiler threads, libuv's pool, Node's own. Under the fair scheduler one
 * of those can hold the core for a slice (a millisecond or more) while the loop or the pacing
 * thread waits to send or to read an answer, and the run counts that wait as the target's
 * latency. A SCHED_IDLE thread gives the core up the moment a normal thread wants it, and still
 * runs whenever the core would otherwise idle. Measured on nginx at normal scheduling, engine and
 * target on a core each, 3 rounds each: p99 at 1,000 req/s 1.32 → 0.70 ms, at 5,000 1.69 → 1.15,
 * at 500 1.77 → 1.06 (bench/README.md). Not above `IDLE_HELPERS_MAX_RATE`.
 *
 * No privilege is needed to idle them; putting them back needs CAP_SYS_NICE (or root), so the
 * last run to end puts them back where the process may, and elsewhere they stay idle for the
 * process's life: a later run above the rate says so in its note. Only where the engine runs on
 * the process's main thread (the worker, an agent), so that a process shared with other work (a
 * test runner's threads) is left alone. Every pacing thread alive (`keepPacingThread`), also
 * another run's, stays as it is; the sweep waits for one still starting to report its id.
 */
export async function idleHelperThreads(peakRate: number): Promise<HelperThreads> {
  const nothing = () => undefined;
  const normal = (note: string): HelperThreads => ({ helperThreads: "normal", note, release: nothing });
  const loop = currentThreadId();
  if (loop === null) return normal("not on Linux");
  if (loop !== process.pid) return normal("the engine is not on the process's main thread");
  if (peakRate > IDLE_HELPERS_MAX_RATE) {
    if ([...idledThreads].some((tid) => threadPolicy(tid) === SCHED_IDLE)) {
      return {
        helperThreads: "idle",
        note: `still at idle priority from another run (putting them back needs CAP_SYS_NICE); above ${IDLE_HELPERS_MAX_RATE} req/s a run leaves them at normal priority`,
        release: nothing,
      };
    }
    return normal(
      `above ${IDLE_HELPERS_MAX_RATE} req/s the event loop is busy nearly all the time, and the collector needs its helper threads`,
    );
  }
  const keep = new Set<number>([loop]);
  const alive = [...pacingThreads];
  const ids = await Promise.all(alive.map(([, tid]) => pacingThreadId(tid)));
  for (const [i, tid] of ids.entries()) {
    if (tid !== null) keep.add(tid);
    // A thread still alive that never said who it is could be any of them.
    else if (pacingThreads.has(alive[i]![0])) return normal("a pacing thread's id is unknown");
  }
  let tids: number[];
  try {
    tids = readdirSync("/proc/self/task").map(Number);
  } catch {
    return normal("/proc/self/task is not readable");
  }
  const release = helperHolders.add(() => {
    for (const tid of idledThreads) {
      // Refused without CAP_SYS_NICE: the thread stays idle, and is remembered as such.
      if (threadPolicy(tid) !== SCHED_IDLE || chrt(["--other", "-p", "0", String(tid)]) === null) {
        idledThreads.delete(tid);
      }
    }
  });
  for (const tid of tids) {
    if (keep.has(tid) || threadPolicy(tid) === SCHED_IDLE) continue;
    const failed = chrt(["--idle", "-p", "0", String(tid)]);
    if (!failed) idledThreads.add(tid);
    // A thread that ended meanwhile is no failure.
    else if (threadPolicy(tid) !== null) {
      release();
      return normal(failed);
    }
  }
  return { helperThreads: "idle", release };
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
    // Back at SCHED_OTHER: a run still holding the short slice keeps it, and one that ended
    // while the loop was real-time has its reset done now (the kernel kept the custom slice).
    if (sliceHolders.held || sliceResetOwed) {
      setThreadSlice(loop, sliceHolders.held ? LOOP_SLICE_NS : 0);
      sliceResetOwed = false;
    }
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

/**
 * The slice of the open model's two timing threads, the event loop and the run's pacing thread,
 * under the fair scheduler: 0.1 ms, the kernel's shortest, instead of its default (0.7–3 ms, by
 * core count).
 *
 * Under EEVDF (Linux 6.6+) a thread waking up takes its core from the running one only if its
 * deadline comes first, and a thread's deadline is its slice ahead of its virtual runtime. Since
 * Linux 6.12 a thread may ask for a shorter slice (`sched_setattr`'s `sched_runtime` on
 * SCHED_OTHER): it then wins its wake-ups, in shorter turns, for the same share of the core. The
 * loop wakes for every answer and every send, the pacing thread for every due time; either
 * otherwise waits for whatever holds the core to end its turn, and the run counts that wait as
 * the target's latency. Measured on nginx at normal scheduling with the helper threads idle,
 * engine and target on a core each, 8 s runs side by side (bench/README.md): p99 lower in 15 of
 * 16 pairs at 1,000 req/s (median 1.14 → 0.95 ms in the last 4) and in 5 of 7 at 500 (1.44–1.53
 * → 0.74–1.13 ms in the last 4), but in 2 of 7 at 2,000 and 1 of 4 at 5,000, where send lag p99
 * rose (0.22–0.38 → 0.24–0.65 ms at 5,000): a loop that busy, in shorter turns, and the pacing
 * thread take the core from each other more often. Hence `LOOP_SLICE_MAX_RATE`. The loop alone
 * with the short slice measured worse than neither (within 60 s runs switching it every 3 s, the
 * mean per-second p99 at 1,000 req/s 2.79 and 2.37 ms against 1.96 and 1.83): the pacing thread
 * then lost its wake-ups to it.
 *
 * No privilege is needed, either way: the last run to end puts the loop's default back (the
 * pacing thread ends with its run). A loop at real-time priority (another run's) is left as it
 * is. Where the kernel is older than 6.12, or Perl (which makes the system call; `chrt` before
 * util-linux 2.40 cannot) is missing, the run says so.
 */
export const LOOP_SLICE_NS = 100_000;
export const LOOP_SLICE_MAX_RATE = 1_000;

export interface LoopSlice {
  /** "short" when the loop and the pacing thread ran with `LOOP_SLICE_NS`; otherwise "default" and why. */
  loopSlice: "short" | "default";
  note?: string;
  release(): void;
}

/** Runs in progress holding the loop's short slice. */
const sliceHolders = new SharedHold();
/** The last run holding the short slice ended while the loop was real-time: reset it once back. */
let sliceResetOwed = false;

/** `sched_setattr`'s system call number, where the engine knows it. */
const SCHED_SETATTR: Partial<Record<string, number>> = { x64: 314, arm64: 274 };

/**
 * Give a fair-class thread a custom slice (`ns`), or the kernel's default (0), and `policy`
 * (SCHED_OTHER, or `SCHED_BATCH`), keeping its nice value; returns why not, or null. Through
 * Perl's `syscall`: Node cannot make the call, and `chrt` could only from util-linux 2.40.
 */
export function setThreadSlice(tid: number, ns: number, policy: 0 | typeof SCHED_BATCH = 0): string | null {
  const nr = SCHED_SETATTR[process.arch];
  if (nr === undefined) return `the engine does not know sched_setattr on ${process.arch}`;
  // proc(5) field 19; `sched_setattr` sets the nice value with the slice.
  const nice = threadStatField(tid, 19);
  if (nice === null) return "the thread has exited";
  // struct sched_attr (56 bytes): size, policy, flags, nice, priority, runtime, deadline, period, util min/max.
  // Perl passes a string argument of `syscall` as a pointer: the numbers are made numbers first.
  const script =
    'my ($nr, $tid, $nice, $ns, $policy) = @ARGV; my $attr = pack("LLQlLQQQLL", 56, $policy, 0, $nice, 0, $ns, 0, 0, 0, 0); syscall($nr + 0, $tid + 0, $attr, 0) == 0 or die "$!\\n"';
  try {
    execFileSync("perl", ["-e", script, String(nr), String(tid), String(nice), String(ns), String(policy)], {
      stdio: ["ignore", "ignore", "pipe"],
      timeout: 5_000,
    });
    return null;
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { stderr?: Buffer };
    if (e.code === "ENOENT") return "perl is not installed (it makes the system call)";
    return `sched_setattr: ${e.stderr?.toString().trim() || e.message}`;
  }
}

/** Whether this kernel honours a custom slice on SCHED_OTHER (Linux 6.12 and later). */
export function kernelHasCustomSlices(release = os.release()): boolean {
  const [major = 0, minor = 0] = release.split(/[.-]/).map(Number);
  return major > 6 || (major === 6 && minor >= 12);
}

/**
 * Give the event loop and the run's pacing thread `LOOP_SLICE_NS` for an open-model run (see
 * above); `release` when it ends. `pacerPolicy` is set on the pacing thread in the same call
 * (`SCHED_BATCH`: see `batchPacingThread`).
 */
export function shortLoopSlice(
  peakRate: number,
  pacerThreadId: number | null,
  pacerPolicy: 0 | typeof SCHED_BATCH = 0,
): LoopSlice {
  const unchanged = (note: string): LoopSlice => ({ loopSlice: "default", note, release: () => undefined });
  const loop = currentThreadId();
  if (loop === null) return unchanged("not on Linux");
  if (peakRate > LOOP_SLICE_MAX_RATE)
    return unchanged(
      `above ${LOOP_SLICE_MAX_RATE} req/s the event loop is busy enough that shorter turns made sends later, not sooner`,
    );
  if (!kernelHasCustomSlices()) return unchanged(`Linux ${os.release()} has no custom slices (6.12 and later have)`);
  if (threadPolicy(loop) !== 0) return unchanged("the event loop is at real-time priority");
  if (pacerThreadId === null) return unchanged("the pacing thread's id is unknown");
  if (!sliceHolders.held) {
    const failed = setThreadSlice(loop, LOOP_SLICE_NS);
    if (failed) return unchanged(failed);
  }
  const release = sliceHolders.add(() => {
    // A loop another run raised to real-time keeps it (a SCHED_OTHER call would take it down);
    // that run's release resets the slice.
    if (threadPolicy(loop) === 0) setThreadSlice(loop, 0);
    else sliceResetOwed = true;
  });
  const pacerFailed = setThreadSlice(pacerThreadId, LOOP_SLICE_NS, pacerPolicy);
  if (pacerFailed) {
    release();
    return unchanged(`the pacing thread: ${pacerFailed}`);
  }
  return { loopSlice: "short", release };
}

/**
 * The run's pacing thread at SCHED_BATCH, keeping the slice it has (`sliceNs`, or 0 for the
 * kernel's default): a batch thread never preempts the running one when it wakes, and takes its
 * turn when that one yields or its slice ends.
 *
 * The event loop wakes the pacing thread for every send it asks for (`Pacer.wakeAt`), and the
 * pacing thread then took the core from the loop at once, only to read the new due time and
 * sleep again: two context switches in the middle of the loop's work, and a loop that has had its
 * share then loses the next pick to whatever else is eligible (bench/README.md). Its own wake-ups
 * before a due time likewise broke into a busy loop that could not read the byte before its work
 * was done. As a batch thread it runs when the loop waits for I/O, which on the engine's core is
 * at once. Measured on nginx, engine and target on a core each, normal scheduling, 8 s runs side
 * by side (bench/README.md): p99 lower in 6 of 7 pairs at 1,000 req/s (medians 1.20 → 0.70 ms
 * over 4 pairs), 6 of 7 at 5,000 (1.77 → 1.52 ms; CPU per request 153 → 142 µs) and 6 of 8 at
 * 10,000, where send lag p99 fell too (0.79 → 0.48 ms); at 500, 1 of 3, within the spread. No
 * privilege is needed, and nothing to put back: the thread ends with its run.
 */
export function batchPacingThread(
  pacerThreadId: number | null,
  sliceNs: number,
): { pacingThread: "batch" | "normal"; note?: string } {
  if (currentThreadId() === null) return { pacingThread: "normal", note: "not on Linux" };
  if (pacerThreadId === null) return { pacingThread: "normal", note: "the pacing thread's id is unknown" };
  const failed = setThreadSlice(pacerThreadId, sliceNs, SCHED_BATCH);
  return failed ? { pacingThread: "normal", note: failed } : { pacingThread: "batch" };
}

/** The loop's slice in ns from the kernel's scheduler statistics, where it shows them (`/proc/…/sched`). */
export function threadSlice(tid: number): number | null {
  try {
    const m = /^se\.slice\s*:\s*(\d+)/m.exec(readFileSync(`/proc/self/task/${tid}/sched`, "utf8"));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}
