import { monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";
import { classifyReasons, type EngineProgress, type LatencyHistogram, recordMicros } from "@benchboard/core";
import type { Pool } from "undici";
import { CPU_SATURATED, judgeGenerator } from "../generator-error";
import { type CallDone, CallTimeoutError, createPool, type HttpCall } from "../http/call";
import { type Stall, startOpenLoop } from "../open-loop";
import { Pacer } from "../pacer";
import {
  guardRealtime,
  holdRealtime,
  normalScheduling,
  pacingThreadId,
  REALTIME_LATE_MS,
  REALTIME_MAX_RATE,
  type RealtimeHold,
} from "../realtime";
import { checkpointer, Recorder, warmRecorderCode } from "../recorder";
import { ArrivalSchedule } from "../schedule";
import type { EngineContext, EngineResult } from "../types";
import { everySecond, InFlight } from "../util";

/** Below this share of the scheduled requests actually sent in the window, the run is invalid. */
export const MIN_ACHIEVED_FRACTION = 0.99;
/** A request that left this much behind its due time was not sent by an open model. */
export const LATE_SEND_MS = 100;
/** Slack for the last requests of the window: timer granularity, not under-load. */
const WINDOW_GRACE_MS = 50;
/** Below this share of the send rate, completed responses per second make the run invalid. */
export const MIN_COMPLETED_FRACTION = 0.9;
/** How long a canceled run waits for calls in flight before closing connections. */
export const CANCEL_GRACE_MS = 500;

export interface OpenModelOptions {
  origin: string;
  rate: number;
  durationS: number;
  rampFromRate?: number;
  rampS?: number;
  warmupS: number;
  maxConnections: number;
  timeoutMs: number;
  /** Start one call due at `dueAt` (performance.now() time) and return its handler. */
  dispatch: (pool: Pool, dueAt: number, index: number, done: CallDone) => HttpCall;
  /** Record a finished call (warm-up calls into a recorder that is thrown away: one code path for both). */
  record: (rec: Recorder, call: HttpCall, error: Error | null, nowPerf: number) => void;
  /** Extra count series beyond `rps`, `errors`, `target_rps`. */
  seriesKeys?: string[];
  /** Engine-specific figures added to each second's progress (e.g. an LLM run's TTFT). */
  progress?: (rec: Recorder, progress: EngineProgress) => EngineProgress;
}

/**
 * Open model: requests are sent at a fixed (or linearly ramping) arrival rate whatever the
 * target's response times, and latency runs from each request's *due* time, so a slow target
 * shows in the latency instead of silently lowering the load (no coordinated omission).
 *
 * Connections are opened and warmed by `warmupS` of the same traffic first; those requests are
 * not measured. If the engine cannot keep the schedule — CPU, or every one of `maxConnections`
 * busy so requests wait in the client — the result carries the achieved rate and is invalid.
 *
 * The generator's own error is measured beside the target's figures: send lag (due time → fired,
 * the pacing's own lateness), connection wait (fired → on a socket, which a slow target causes),
 * event-loop delay and the process's CPU. A run whose send lag is material against the latency
 * it measured is invalid, and the reason names the generator.
 */
export async function runOpenModel(spec: OpenModelOptions, ctx: EngineContext): Promise<EngineResult> {
  const signal = ctx.signal;
  warmRecorderCode();
  const pool = createPool(spec.origin, spec.maxConnections, spec.timeoutMs, ctx.pin);
  const schedule = new ArrivalSchedule(spec.rate, spec.durationS, spec.rampFromRate, spec.rampS);
  const peakRate = Math.max(spec.rate, spec.rampFromRate ?? 0);
  // Requests waiting for a connection are kept up to what a full timeout at the peak rate needs.
  const maxInFlight = Math.min(1_000_000, spec.maxConnections + Math.ceil(peakRate * (spec.timeoutMs / 1000 + 1)));
  const inFlight = new InFlight();
  const startedAt = new Date();
  const pacer = await Pacer.start();
  // The pacing thread's first message comes once it runs: a run that starts sending before then
  // (no warm-up) would find its first wake-ups late by the thread's start-up, and then stalled.
  await pacer?.threadId();
  let closing = false;
  let realtime: RealtimeHold | null = null;
  let stopGuard: () => void = () => undefined;

  try {
    if (ctx.realtime && peakRate > REALTIME_MAX_RATE) {
      realtime = normalScheduling(
        `above ${REALTIME_MAX_RATE} req/s the event loop is busy nearly all the time, and a real-time loop that busy is throttled by the kernel and holds off its network work`,
      );
    } else if (ctx.realtime && pacer?.wake !== "socket") {
      // Wake-ups through Atomics.waitAsync were lost at real-time priority (pacer.ts).
      realtime = normalScheduling(
        pacer ? "the pacing thread has no socket to wake the event loop through" : "no pacing thread",
      );
    } else if (ctx.realtime && pacer) {
      // A pacing thread that never says who it is leaves the run at normal scheduling, and the
      // result says so.
      realtime = holdRealtime(await pacingThreadId(pacer.threadId()));
    }
    // One phase's state. The warm-up and the measurement run the same `fire` and `done` (built
    // by one function, so they share the compiled code and its type feedback): the warm-up
    // records into a recorder that is thrown away. Warming other functions than the measured
    // ones left the measured path to be compiled and optimised during the first second of
    // measurement, whose pauses (2–9 ms at 5,000 req/s, measured) the run counted as latency.
    const newPhase = (startPerf: number, durationS: number): Phase => {
      const rec = new Recorder(["rps", "errors", "target_rps", ...(spec.seriesKeys ?? [])], startPerf);
      return {
        rec,
        sendLag: rec.extraHistogram(SEND_LAG),
        connectionWait: rec.extraHistogram(CONNECTION_WAIT),
        fromSend: rec.extraHistogram(FROM_SEND),
        windowEnd: startPerf + durationS * 1000,
        issuedInWindow: 0,
        lateSends: 0,
        dropped: 0,
        firedAllBusy: 0,
        fired: 0,
        lateFires: 0,
        completedCalls: 0,
        lastDoneAt: startPerf,
      };
    };
    let poke: (now: number) => void = () => undefined;
    const doneFor =
      (phase: Phase): CallDone =>
      (call, error) => {
        inFlight.dec();
        if (closing) return; // torn down by cancellation: not a measurement
        const now = performance.now();
        phase.completedCalls++;
        if (now > phase.lastDoneAt) phase.lastDoneAt = now;
        const issuedAt = call.sentAt > 0 ? call.sentAt : now;
        const firedAt = call.firedAt > 0 ? call.firedAt : issuedAt;
        recordMicros(phase.sendLag, Math.max(0, firedAt - call.startAt) * 1000);
        recordMicros(phase.connectionWait, Math.max(0, issuedAt - firedAt) * 1000);
        // Answered: its latency as tools that time from the send report it (see FROM_SEND).
        if (error === null) recordMicros(phase.fromSend, Math.max(0, now - firedAt) * 1000);
        if (issuedAt - call.startAt > LATE_SEND_MS) phase.lateSends++;
        if (issuedAt <= phase.windowEnd + WINDOW_GRACE_MS) phase.issuedInWindow++;
        spec.record(phase.rec, call, error, now);
        poke(now);
      };
    // A send dropped after a stall is still part of the rate asked for (`target_rps`).
    const skipFor = (phase: Phase) => (_n: number, dueAt: number) => phase.rec.count("target_rps", dueAt);
    // A run that was told, after a stall in its warm-up, not to go on never starts measuring.
    let refused = false;
    const askAfterStall = ctx.confirmAfterStall;
    const confirm =
      askAfterStall &&
      ((stall: Stall) =>
        askAfterStall(stall).then((goOn) => {
          if (!goOn) refused = true;
          return goOn;
        }));
    const fireFor = (phase: Phase) => {
      const done = doneFor(phase);
      return (n: number, dueAt: number, firedAt: number) => {
        if (firedAt - dueAt > REALTIME_LATE_MS) phase.lateFires++;
        const rec = phase.rec;
        rec.count("target_rps", dueAt);
        if (inFlight.count >= maxInFlight) {
          phase.dropped++;
          rec.add("requests");
          rec.add("failed");
          rec.count("rps", firedAt);
          rec.count("errors", firedAt);
          rec.error("dropped", `more than ${maxInFlight} requests waiting for a connection`);
          return;
        }
        phase.fired++;
        if (inFlight.count >= spec.maxConnections) phase.firedAllBusy++;
        inFlight.inc();
        const call = spec.dispatch(pool, dueAt, n, done);
        call.deadline = dueAt + spec.timeoutMs;
        call.firedAt = firedAt;
      };
    };

    // Warm-up: the same request at the schedule's starting rate, not measured. It ramps up over
    // its first half: opening every connection at once at full rate stalls the event loop for
    // a few hundred ms, and that must be over before measuring starts.
    let measureStart = performance.now() + 5;
    let warmupRequests = 0;
    if (spec.warmupS > 0 && !signal?.aborted) {
      const warmRate = Math.max(schedule.rateAt(0), Math.min(spec.rate, 10));
      const warm = new ArrivalSchedule(warmRate, spec.warmupS, warmRate / 10, spec.warmupS / 2);
      const warmStart = performance.now() + 5;
      measureStart = warmStart + spec.warmupS * 1000;
      const warmPhase = newPhase(warmStart, spec.warmupS);
      const warmLoop = startOpenLoop({
        schedule: warm,
        startPerf: warmStart,
        signal,
        pacer,
        fire: fireFor(warmPhase),
        skip: skipFor(warmPhase),
        confirm,
      });
      poke = warmLoop.poke;
      await warmLoop.done;
      warmupRequests = warmPhase.fired;
    }

    const phase = newPhase(measureStart, spec.durationS);
    // From here a real-time run whose sends come late leaves real-time. Not in the warm-up, whose
    // connections opening make sends late at any scheduling.
    if (realtime)
      stopGuard = guardRealtime(
        realtime,
        {
          get sends() {
            return phase.fired + phase.dropped;
          },
          get late() {
            return phase.lateFires;
          },
        },
        (normal) => {
          realtime = normal;
        },
      );
    const rec = phase.rec;
    const windowEndPlanned = phase.windowEnd;

    const eventLoop = monitorEventLoopDelay({ resolution: 10 });
    eventLoop.enable();
    const gc = watchGcPauses();
    const cpuAtStart = process.cpuUsage();
    const checkpoint = checkpointer(ctx, rec, startedAt);
    const stopProgress = everySecond(() => {
      const now = performance.now();
      rec.tick(now);
      checkpoint(now);
      if (!ctx.onProgress) return;
      const progress = {
        ...rec.progress(now, (now - measureStart) / (spec.durationS * 1000)),
        ...rec.generatorProgress(),
      };
      ctx.onProgress(spec.progress ? spec.progress(rec, progress) : progress);
    });
    let loop: { fired: number; stoppedEarly: boolean };
    let lostWakeups = 0;
    let stalls: readonly Stall[] = [];
    try {
      const measured = startOpenLoop({
        schedule,
        startPerf: measureStart,
        signal: refused ? AbortSignal.abort() : signal,
        pacer,
        fire: fireFor(phase),
        skip: skipFor(phase),
        confirm,
      });
      poke = measured.poke;
      loop = await measured.done;
      lostWakeups = measured.lostWakeups();
      stalls = measured.stalls();
      if (loop.stoppedEarly) phase.windowEnd = Math.min(windowEndPlanned, performance.now());
      const drainMs = signal?.aborted ? CANCEL_GRACE_MS : spec.timeoutMs + 1000;
      await inFlight.drained(drainMs, signal);
      if (signal?.aborted && inFlight.count > 0) await inFlight.drained(CANCEL_GRACE_MS);
    } finally {
      stopProgress();
      eventLoop.disable();
      gc.stop();
      pacer?.close();
    }
    const cpu = process.cpuUsage(cpuAtStart);
    const { windowEnd, issuedInWindow, lateSends, dropped, firedAllBusy, completedCalls, lastDoneAt } = phase;
    const canceled = loop.stoppedEarly;
    const stallDropped = stalls.reduce((sum, s) => sum + s.dropped, 0);
    const leftOver = inFlight.count;
    if (leftOver > 0 && !canceled) {
      // Past every timeout and still unanswered: count them, then close the connections.
      rec.add("requests", leftOver);
      rec.add("failed", leftOver);
      rec.error("timeout", `no response ${spec.timeoutMs} ms after the due time`, undefined, leftOver);
    }
    closing = true;
    await pool.destroy(new CallTimeoutError("run ended")).catch(() => undefined);

    const endPerf = performance.now();
    const windowMs = Math.max(1, windowEnd - measureStart);
    const windowS = windowMs / 1000;
    const targetRequests = Math.floor(schedule.countAt(windowS) + 1e-9);
    const targetRps = targetRequests / windowS;
    const achievedRps = issuedInWindow / windowS;
    rec.counters.rps = achievedRps;
    rec.counters.target_rps = targetRps;
    // Runtime as measured: from the first due time to the last response, not the nominal window.
    const runtimeMs = canceled ? windowMs : Math.max(windowMs, lastDoneAt - measureStart);
    // Completed throughput: successful responses per second over that runtime, beside the send rate.
    const completedRps = (rec.counters.success ?? 0) / (runtimeMs / 1000);
    rec.counters.completed_rps = completedRps;
    // The generator's CPU over the measured part (the process's: the engine is all it runs here).
    const busyS = (cpu.user + cpu.system) / 1e6;
    const wallS = Math.max(0.001, (endPerf - measureStart) / 1000);
    rec.add("generator_cpu_s", busyS);
    rec.add("generator_wall_s", wallS);
    const loopDelayMs = (v: number) => (Number.isFinite(v) && eventLoop.count > 0 ? v / 1e6 : null);

    const eventLoopFigures = {
      eventLoopDelayP50Ms: loopDelayMs(eventLoop.percentile(50)),
      eventLoopDelayP99Ms: loopDelayMs(eventLoop.percentile(99)),
      eventLoopDelayMaxMs: loopDelayMs(eventLoop.max),
    };
    const result = rec.finish(endPerf, {
      startedAt,
      endedAt: new Date(),
      canceled,
      runtimeMs,
      extra: {
        schedule: {
          targetRequests,
          issuedInWindow,
          lateSends,
          dropped,
          warmupRequests,
          pacer: pacer ? "thread" : "timer",
          // Pacing wake-ups that never came, replaced by the loop's timer check (open-loop.ts).
          lostWakeups,
          // Stalls the loop came back from (the process frozen, the host too busy): what each dropped.
          ...(stalls.length ? { stallDropped, stalls: stallRecords(stalls) } : {}),
          ...(realtime
            ? { scheduling: realtime.scheduling, ...(realtime.reason ? { schedulingNote: realtime.reason } : {}) }
            : {}),
        },
        generator: {
          ...eventLoopFigures,
          cpuSeconds: busyS,
          cpuShare: busyS / wallS,
          gcPauses: gc.count,
          gcPauseTotalMs: gc.totalMs,
          gcPauseMaxMs: gc.maxMs,
        },
      },
    });
    const m = result.metrics;
    if (stalls.length) m.stall_dropped = stallDropped;
    if (eventLoopFigures.eventLoopDelayP99Ms !== null) m.event_loop_delay_p99 = eventLoopFigures.eventLoopDelayP99Ms;
    if (eventLoopFigures.eventLoopDelayMaxMs !== null) m.event_loop_delay_max = eventLoopFigures.eventLoopDelayMaxMs;
    if (gc.observed) {
      m.gc_pause_max = gc.maxMs;
      m.gc_pause_share = (gc.totalMs / (wallS * 1000)) * 100;
    }
    Object.assign(result.extra?.schedule as object, {
      sendLagP50Ms: m.send_lag_p50 ?? null,
      sendLagP99Ms: m.send_lag_p99 ?? null,
      sendLagMaxMs: m.send_lag_max ?? null,
      connectionWaitP99Ms: m.connection_wait_p99 ?? null,
    });

    const judged = judgeGenerator({
      sendLagP50Ms: m.send_lag_p50 ?? null,
      sendLagP99Ms: m.send_lag_p99 ?? null,
      connectionWaitP99Ms: m.connection_wait_p99 ?? null,
      latencyP50Ms: m.latency_p50 ?? null,
      latencyP99Ms: m.latency_p99 ?? null,
      cpuShare: busyS / wallS,
      maxConnections: spec.maxConnections,
      allBusyShare: firedAllBusy / Math.max(1, phase.fired),
    });
    // The target's reasons make the run saturated (a measurement); only the generator's own
    // distortion makes it invalid, and where both apply the generator's is said first.
    const targetReasons: string[] = [];
    const generatorReasons: string[] = [];
    if (!canceled && issuedInWindow > 0 && completedCalls > 0 && completedRps < MIN_COMPLETED_FRACTION * achievedRps) {
      targetReasons.push(
        `the target did not keep up: completed ${completedRps.toFixed(1)} responses/s, below ${MIN_COMPLETED_FRACTION * 100}% of the ${achievedRps.toFixed(1)} req/s sent (responses failed or took until ${((runtimeMs - windowMs) / 1000).toFixed(1)} s after the sending window)`,
      );
    }
    if (judged.targetLimited) targetReasons.push(judged.targetLimited);
    if (judged.generator) generatorReasons.push(judged.generator);
    // A shortfall the stalls account for is said by the stall's reason.
    if (targetRequests > 0 && issuedInWindow + stallDropped < MIN_ACHIEVED_FRACTION * targetRequests) {
      const shortfall = `achieved ${achievedRps.toFixed(1)} req/s, below ${MIN_ACHIEVED_FRACTION * 100}% of the target ${targetRps.toFixed(1)} req/s`;
      // Short of the rate while the target held its connections or fell behind, and with the
      // generator neither late nor out of CPU: the target set the pace (opening connection
      // after connection to a target that keeps them busy is its doing, not the generator's).
      const targetHeld =
        (judged.targetLimited !== null || targetReasons.length > 0) &&
        !judged.generator &&
        judged.cpuShare < CPU_SATURATED;
      if (targetHeld) targetReasons.push(`${shortfall}: the target held the connections`);
      else
        generatorReasons.push(
          `${shortfall}: the load generator could not send faster (its CPU ${(judged.cpuShare * 100).toFixed(0)}% of a core)`,
        );
    }
    // A stall is always recorded (stall_dropped, extra.schedule.stalls); it makes the run invalid
    // when what it dropped is material, by the same 1 % the achieved-rate rule allows: a host's
    // brief hiccup that cost a handful of sends leaves the other 99 % of the schedule measured.
    if (stalls.length && stallDropped > (1 - MIN_ACHIEVED_FRACTION) * Math.max(1, targetRequests))
      generatorReasons.unshift(stallReason(stalls, stallDropped));
    if (dropped > 0)
      targetReasons.push(`${dropped} requests dropped: more than ${maxInFlight} waiting for a connection`);
    Object.assign(result, classifyReasons({ generator: generatorReasons, target: targetReasons }));
    return result;
  } finally {
    stopGuard();
    realtime?.release();
    closing = true;
    pacer?.close();
    await pool.destroy().catch(() => undefined);
  }
}

/** How many stalls a result lists one by one (the longest); the count and the total cover all. */
export const MAX_STALL_RECORDS = 20;

/** The result's record of the stalls: when (s into the measured window), how long, what each dropped. */
function stallRecords(stalls: readonly Stall[]) {
  const longest = [...stalls].sort((a, b) => b.gapMs - a.gapMs).slice(0, MAX_STALL_RECORDS);
  return longest
    .sort((a, b) => a.atMs - b.atMs)
    .map((s) => ({
      atS: Math.round(s.atMs) / 1000,
      gapMs: Math.round(s.gapMs),
      dropped: s.dropped,
      confirmMs: Math.round(s.confirmMs),
    }));
}

/** Why a run with a stall is the generator's distortion, not the target's figures. */
function stallReason(stalls: readonly Stall[], dropped: number): string {
  const longest = stalls.reduce((a, b) => (b.gapMs > a.gapMs ? b : a));
  const times = stalls.length === 1 ? "once" : `${stalls.length} times`;
  return `the load generator stalled ${times} (the longest ${(longest.gapMs / 1000).toFixed(1)} s, ${(longest.atMs / 1000).toFixed(1)} s into the run): ${dropped} scheduled requests were dropped rather than sent late in a burst, and requests in flight then waited for it`;
}

/** The figures of one phase (warm-up or measurement) of an open-model run. */
interface Phase {
  rec: Recorder;
  sendLag: LatencyHistogram;
  connectionWait: LatencyHistogram;
  /** Fired → answered, for answered requests (`FROM_SEND`). */
  fromSend: LatencyHistogram;
  /** performance.now() the sending window ends (earlier when canceled). */
  windowEnd: number;
  issuedInWindow: number;
  lateSends: number;
  dropped: number;
  /** Requests fired while every connection was busy. */
  firedAllBusy: number;
  fired: number;
  /** Sends (dropped ones too) fired more than `REALTIME_LATE_MS` after their due time. */
  lateFires: number;
  completedCalls: number;
  lastDoneAt: number;
}

/** Extra histograms (µs) the open model records for every measured request. */
export const SEND_LAG = "send_lag";
export const CONNECTION_WAIT = "connection_wait";
/**
 * Each answered request's latency from the moment the engine fired it (before any wait for a
 * free connection) rather than from its due time: what oha (`--latency-correction` starts the
 * clock when its pacer wakes, not at the intended time) and vegeta (when a worker begins the hit)
 * report. The run's latency stays from the due time; the two differ by the generator's own
 * lateness, and this one is there to compare with those tools like for like.
 */
export const FROM_SEND = "from_send";

/**
 * The garbage collector's pauses while measuring: each one holds every send and every response
 * of the process, so they are part of the generator's own error (a young-generation scavenge
 * takes about a millisecond). Counted from the runtime's `gc` performance entries.
 */
function watchGcPauses(): { count: number; totalMs: number; maxMs: number; observed: boolean; stop: () => void } {
  const figures = { count: 0, totalMs: 0, maxMs: 0, observed: false, stop: () => undefined as void };
  try {
    const observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        figures.count++;
        figures.totalMs += entry.duration;
        if (entry.duration > figures.maxMs) figures.maxMs = entry.duration;
      }
    });
    observer.observe({ entryTypes: ["gc"] });
    figures.observed = true;
    figures.stop = () => observer.disconnect();
  } catch {
    // No gc entries on this runtime: the figures are left out rather than shown as zero.
  }
  return figures;
}
