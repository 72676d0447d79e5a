import { randomBytes, timingSafeEqual } from "node:crypto";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";

/**
 * Wakes the event loop at a given `performance.now()` time, within tens of microseconds.
 *
 * `setTimeout` cannot: libuv keeps its clock and its poll timeout in whole milliseconds, so a
 * timer lands 0–1 ms after its time (measured here: 0.6–0.9 ms p50 at 500–10,000 wake-ups/s),
 * and an open model that measures latency from the due time counts that lateness as the
 * target's. Spinning the event loop with `setImmediate` until the time comes is precise but
 * burns a whole core at any rate above ~700/s, which the generator needs for sending.
 *
 * Here a small thread sleeps with `Atomics.wait`, whose timeout is a futex wait with
 * sub-millisecond resolution, spins only the last few microseconds, and then wakes the event
 * loop by writing a byte to a Unix socket the loop reads: libuv's poll returns at once, and the
 * read is an ordinary I/O callback. (An `Atomics.notify` on a word the loop awaits with
 * `Atomics.waitAsync` is the other way, and the fallback where no socket can be had: its
 * wake-up goes through a V8 task that Node's platform posts to the loop, and with both threads
 * at real-time priority that path lost wake-ups in about half the runs at 1,000–5,000/s,
 * measured, where the socket lost none.) Measured at 500–10,000 wake-ups/s on a busy 2-core
 * machine: 80–140 µs p50 lateness against 600–870 µs with `setTimeout`, for 3–30% of a core.
 *
 * A due time that moves later (the loop sent early from a completion callback) is rewritten
 * without a notify while the thread sleeps towards the earlier one: it sees the change when it
 * wakes and sleeps again, so the event loop is not disturbed for nothing. Requests are counted,
 * not compared by due time, so one asked again after its wake-up is served again.
 */
export class Pacer {
  private readonly words: Int32Array;
  private readonly due: Float64Array;
  private readonly worker: Worker;
  private readonly tid: Promise<number | null>;
  /**
   * The due time the thread will wake the loop at, or NaN when no wake-up is pending (the thread
   * then sleeps towards the hint that came with the last one, `due[1]`: see `wakeAt`).
   */
  private armed = Number.NaN;
  private closed = false;
  /** The loop's pending wake-up, when the thread wakes it through `channel`. */
  private waiter: { generation: number; resolve: () => void } | null = null;

  private constructor(
    spinUs: number,
    private readonly channel: WakeChannel | null,
  ) {
    const shared = new SharedArrayBuffer(32);
    this.words = new Int32Array(shared, 0, 4);
    this.due = new Float64Array(shared, 16, 2);
    this.due[0] = Number.NaN;
    this.due[1] = Number.NaN;
    this.worker = new Worker(PACER_SOURCE, {
      eval: true,
      workerData: {
        shared,
        origin: performance.timeOrigin,
        spinMs: spinUs / 1000,
        chunk: spinIterations(0.002),
        fd: channel ? channel.fd : -1,
      },
      // The thread needs a few KB; the defaults reserve a full heap.
      resourceLimits: { maxOldGenerationSizeMb: 8, maxYoungGenerationSizeMb: 1, stackSizeMb: 1 },
    });
    // Kept referenced: a pending `Atomics.waitAsync` alone does not keep Node running, and
    // before the first connection opens nothing else may. `close()` ends the thread.
    this.worker.on("error", () => undefined);
    // Bytes may arrive together; the generation says whether the pending wake-up was served.
    channel?.reader.on("data", () => {
      const waiter = this.waiter;
      if (waiter && Atomics.load(this.words, GENERATION) !== waiter.generation) {
        this.waiter = null;
        this.armed = Number.NaN;
        waiter.resolve();
      }
    });
    // The thread's first message is its kernel thread id (see `threadId`).
    this.tid = new Promise((resolve) => {
      this.worker.once("message", (id: unknown) => resolve(typeof id === "number" ? id : null));
      this.worker.once("exit", () => resolve(null));
    });
  }

  /** The thread's kernel id (to give it a scheduling class), or null off Linux. */
  threadId(): Promise<number | null> {
    return this.tid;
  }

  /**
   * A pacer thread, or null where threads cannot start (the caller falls back to timers).
   * `wake: "atomics"` skips the socket (it is the fallback; tests use it to cover that path).
   */
  static async start(options: { spinUs?: number; wake?: "socket" | "atomics" } = {}): Promise<Pacer | null> {
    const channel = options.wake === "atomics" ? null : await openWakeChannel();
    let pacer: Pacer;
    try {
      pacer = new Pacer(options.spinUs ?? DEFAULT_SPIN_US, channel);
    } catch {
      channel?.close();
      return null;
    }
    // Ready only once the thread runs: a thread still starting (tens of milliseconds of CPU, far
    // longer on a core another process keeps busy) serves the first wake-ups late (129 ms beside
    // a busy loop on the engine's core, measured).
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, PACER_START_WAIT_MS);
    });
    await Promise.race([pacer.tid, gaveUp]);
    clearTimeout(timer);
    return pacer;
  }

  /** How the thread wakes the loop: "socket", or "atomics" where no socket could be had. */
  get wake(): "socket" | "atomics" {
    return this.channel ? "socket" : "atomics";
  }

  /**
   * Resolve at `duePerf` (or soon after it, if the event loop is busy then).
   *
   * `nextAtLeast`, when the caller knows it, is the earliest time it can ask for after this one.
   * Having woken the loop, the thread then sleeps towards that time instead of waiting to be
   * told the next one, and a next request at or after it needs no notify: the thread finds it
   * when it wakes. The notify was the larger part of each wake-up's cost: two futex calls on the
   * event loop (V8's `Atomics.notify` signals a condition variable under a lock the woken thread
   * then contends for) and a switch to the pacing thread only for it to read the due time and
   * sleep again.
   */
  wakeAt(duePerf: number, nextAtLeast = Number.NaN): Promise<unknown> {
    const generation = Atomics.load(this.words, GENERATION);
    // What the thread sleeps towards: the pending due time, else the last wake-up's hint.
    const earlier = !(duePerf >= (Number.isNaN(this.armed) ? this.due[1]! : this.armed));
    this.due[0] = duePerf;
    this.due[1] = nextAtLeast;
    this.armed = duePerf;
    Atomics.add(this.words, SEQUENCE, 1);
    // The thread sleeps until a due time, or without end once it has served the last request:
    // then even a later due time (or the same one asked again) must wake it.
    if (earlier || Atomics.load(this.words, IDLE) === 1) Atomics.notify(this.words, SEQUENCE);
    if (this.channel) {
      if (this.closed) return Promise.resolve();
      return new Promise<void>((resolve) => {
        this.waiter = { generation, resolve };
      });
    }
    const wait = (Atomics as unknown as AtomicsWithWaitAsync).waitAsync(this.words, GENERATION, generation);
    const done = wait.async ? wait.value : Promise.resolve(wait.value);
    return done.then(() => {
      this.armed = Number.NaN;
    });
  }

  /** Move a pending wake-up later without waking the thread. */
  postpone(duePerf: number): void {
    if (this.closed || Number.isNaN(this.armed) || duePerf <= this.armed) return;
    this.due[0] = duePerf;
    this.armed = duePerf;
    Atomics.add(this.words, SEQUENCE, 1);
    if (Atomics.load(this.words, IDLE) === 1) Atomics.notify(this.words, SEQUENCE);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    Atomics.store(this.words, STOP, 1);
    Atomics.add(this.words, SEQUENCE, 1);
    Atomics.notify(this.words, SEQUENCE);
    // Release a loop still waiting, then end the thread.
    Atomics.add(this.words, GENERATION, 1);
    Atomics.notify(this.words, GENERATION);
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.resolve();
    // The socket closes only once the thread has ended: a descriptor closed while it may still
    // write could be reused meanwhile (by a connection to the target) and get its byte.
    const channel = this.channel;
    void this.worker
      .terminate()
      .catch(() => undefined)
      .finally(() => channel?.close());
  }
}

/** `Atomics.waitAsync` (Node ≥ 16) is in TypeScript's ES2024 library, beyond the one configured. */
interface AtomicsWithWaitAsync {
  waitAsync(
    array: Int32Array,
    index: number,
    value: number,
  ): { async: false; value: "not-equal" | "timed-out" } | { async: true; value: Promise<"ok" | "timed-out"> };
}

/** How long `start` waits for the thread to run (it is used anyway after that, once it does). */
const PACER_START_WAIT_MS = 2_000;
/** Microseconds the thread spins before a due time instead of sleeping (futex wake-up slack). */
const DEFAULT_SPIN_US = 40;
/** How far beyond the spin a due time may be and still be spun for rather than slept towards. */
const SPIN_TOLERANCE_MS = 0.01;
const GENERATION = 0;
const SEQUENCE = 1;
const STOP = 2;
/** Set by the thread while it sleeps with no request to serve (it must be notified to see one). */
const IDLE = 3;

// Plain JavaScript run by the thread, kept inline so the engines need no separate file at run time.
const PACER_SOURCE = `
const { workerData, parentPort } = require("node:worker_threads");
let tid = null;
try { tid = Number(require("node:fs").readlinkSync("/proc/thread-self").split("/").pop()) || null; } catch {}
parentPort.postMessage(tid);
const words = new Int32Array(workerData.shared, 0, 4);
const due = new Float64Array(workerData.shared, 16, 2);
const offset = performance.timeOrigin - workerData.origin;
const spinMs = workerData.spinMs;
const now = () => performance.now() + offset;
// The last microseconds are spun on atomic loads with a clock read every ~2 µs (see spinIterations).
const scratch = new Int32Array(new SharedArrayBuffer(4));
const chunk = workerData.chunk;
// The socket the loop reads (a byte per wake-up), or -1: then Atomics.notify, awaited with waitAsync.
const fd = workerData.fd;
const { writeSync } = require("node:fs");
const byte = new Uint8Array([1]);
// Each request (a new or moved due time) bumps the sequence; the thread wakes the loop once per
// request it sees through, so a due time asked for again after a wake-up is served again.
let served = -1;
// Once a wake-up is served, the thread sleeps towards the hint that came with it (the earliest
// the loop can ask next), where it expects the next request, before it waits without end.
let hint = Number.NaN;
for (;;) {
  const seq = Atomics.load(words, ${SEQUENCE});
  if (Atomics.load(words, ${STOP}) === 1) break;
  const at = due[0];
  if (Number.isNaN(at) || seq === served) {
    const until = hint - spinMs - now();
    hint = Number.NaN;
    if (until > 0) { Atomics.wait(words, ${SEQUENCE}, seq, until); continue; }
    Atomics.store(words, ${IDLE}, 1);
    if (Atomics.load(words, ${SEQUENCE}) === seq) Atomics.wait(words, ${SEQUENCE}, seq);
    Atomics.store(words, ${IDLE}, 0);
    continue;
  }
  const left = at - now();
  // A due time a few microseconds beyond the spin is spun for too: a futex sleep that short
  // would cost a switch and end late anyway.
  if (left > spinMs + ${SPIN_TOLERANCE_MS}) { Atomics.wait(words, ${SEQUENCE}, seq, left - spinMs); continue; }
  while (now() < at) for (let i = 0; i < chunk; i++) Atomics.load(scratch, 0);
  const next = due[1];
  if (Atomics.load(words, ${SEQUENCE}) !== seq) continue;
  served = seq;
  hint = next;
  Atomics.add(words, ${GENERATION}, 1);
  if (fd < 0) Atomics.notify(words, ${GENERATION});
  // A full socket buffer (EAGAIN) means unread wake-ups are already waiting for the loop.
  else try { writeSync(fd, byte); } catch {}
}
`;

interface WakeChannel {
  /** The loop's end: a byte arrives per wake-up. */
  reader: net.Socket;
  /** The descriptor the pacing thread writes to (its socket object stays with the loop). */
  fd: number;
  close(): void;
}

/** How long opening the wake-up socket may take before the pacer falls back to Atomics. */
const WAKE_CHANNEL_TIMEOUT_MS = 2_000;
const WAKE_TOKEN_BYTES = 16;

/**
 * A connected pair of Unix sockets for the thread's wake-ups, or null where none can be had
 * (Windows, or a handle without a descriptor). On Linux the listening name is abstract (nothing
 * on disk); elsewhere a path in the temporary directory, removed once connected.
 *
 * The name is random, but another local user can see a listening name (`/proc/net/unix`) and
 * connect first. So the connecting end sends a random token before anything else, and the
 * listener takes only the connection that delivers it: any other is closed, and the wait gives
 * up after `WAKE_CHANNEL_TIMEOUT_MS` (the pacer then wakes the loop through Atomics).
 */
export async function openWakeChannel(
  /** Tests: runs once the name listens, before the pacer's own end connects. */
  beforeConnect?: (address: string) => Promise<void>,
): Promise<WakeChannel | null> {
  if (process.platform === "win32") return null;
  const name = `benchboard-pacer-${process.pid}-${randomBytes(12).toString("hex")}`;
  const address = process.platform === "linux" ? `\0${name}` : path.join(os.tmpdir(), `${name}.sock`);
  const token = randomBytes(WAKE_TOKEN_BYTES);
  const server = net.createServer();
  const strangers = new Set<net.Socket>();
  let writer: net.Socket | null = null;
  let reader: net.Socket | null = null;
  let timer: NodeJS.Timeout | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen({ path: address }, resolve);
    });
    const accepted = new Promise<net.Socket>((resolve, reject) => {
      timer = setTimeout(() => reject(new Error("the wake-up socket did not connect")), WAKE_CHANNEL_TIMEOUT_MS);
      server.on("connection", (socket: net.Socket) => {
        strangers.add(socket);
        socket.on("error", () => undefined);
        let got = Buffer.alloc(0);
        const onData = (chunk: Buffer) => {
          got = Buffer.concat([got, chunk]);
          if (got.length < WAKE_TOKEN_BYTES) return;
          socket.off("data", onData);
          // Exactly the token: the thread writes nothing before it has the descriptor.
          if (got.length === WAKE_TOKEN_BYTES && timingSafeEqual(got, token)) {
            strangers.delete(socket);
            resolve(socket);
          } else socket.destroy();
        };
        socket.on("data", onData);
      });
    });
    await beforeConnect?.(address);
    const connecting = net.connect({ path: address });
    writer = connecting;
    connecting.on("error", () => undefined);
    await new Promise<void>((resolve, reject) => {
      connecting.once("connect", resolve);
      connecting.once("error", reject);
    });
    connecting.write(token);
    reader = await accepted;
    const fd = (writer as unknown as { _handle?: { fd?: unknown } })._handle?.fd;
    if (typeof fd !== "number" || fd < 0) throw new Error("no descriptor");
    // Neither end keeps the process alive (the thread does, until `close`), nor may throw.
    for (const socket of [reader, writer]) {
      socket.unref();
      socket.on("error", () => undefined);
    }
    const [r, w] = [reader, writer];
    return {
      reader: r,
      fd,
      close: () => {
        r.destroy();
        w.destroy();
      },
    };
  } catch {
    reader?.destroy();
    writer?.destroy();
    return null;
  } finally {
    clearTimeout(timer);
    for (const socket of strangers) socket.destroy();
    server.close();
  }
}

const SPIN_WORD = new Int32Array(new SharedArrayBuffer(4));
/** Milliseconds one atomic load of the spin loop takes here (measured once). */
let loadMs = 0;

/**
 * Iterations of an atomic-load loop that take about `ms` on this machine. Spins read the clock
 * only between such loops: each `performance.now()` allocates (Node's clock builds a small array
 * per call), and a tight loop on it fills the young generation within a few thousand sends and
 * brings a collection pause. The fastest of three rounds is kept (the first runs unoptimised).
 */
export function spinIterations(ms: number): number {
  if (loadMs === 0) {
    const iterations = 20_000;
    let fastest = Number.POSITIVE_INFINITY;
    for (let round = 0; round < 3; round++) {
      const started = performance.now();
      for (let i = 0; i < iterations; i++) Atomics.load(SPIN_WORD, 0);
      fastest = Math.min(fastest, (performance.now() - started) / iterations);
    }
    loadMs = Math.max(1e-7, fastest);
  }
  return Math.max(1, Math.min(100_000, Math.round(ms / loadMs)));
}

/** Busy-wait until `t` (performance.now() time), reading the clock every ~4 µs; returns the time it ended. */
export function spinUntil(t: number): number {
  const chunk = spinIterations(0.004);
  let now = performance.now();
  while (now < t) {
    for (let i = 0; i < chunk; i++) Atomics.load(SPIN_WORD, 0);
    now = performance.now();
  }
  return now;
}
