import { createHistogram, type EngineProgress, recordMicros } from "@benchboard/core";
import type { Pool } from "undici";
import { type CallDone, CallTimeoutError, createPool, type HttpCall } from "../http/call";
import { runOpenLoop } from "../open-loop";
import { checkpointer, Recorder } from "../recorder";
import { ArrivalSchedule } from "../schedule";
import type { EngineContext, EngineResult } from "../types";
import { everySecond, InFlight } from "../util";

/** Below this share of the scheduled requests actually sent in the window, the run is invalid. */
export const MIN_ACHIEVED_FRACTION = 0.99;
/** A request that left this much behind its due time was not sent by an open model. */
export const LATE_SEND_MS = 100;
/** More than this share of late sends makes the run invalid. */
export const MAX_LATE_FRACTION = 0.01;
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
  dispatch: (pool: Pool, dueAt: number, index: number, measured: boolean, done: CallDone) => HttpCall;
  /** Record a finished, measured call. */
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
 */
export async function runOpenModel(spec: OpenModelOptions, ctx: EngineContext): Promise<EngineResult> {
  const signal = ctx.signal;
  const pool = createPool(spec.origin, spec.maxConnections, spec.timeoutMs, ctx.pin);
  const schedule = new ArrivalSchedule(spec.rate, spec.durationS, spec.rampFromRate, spec.rampS);
  const peakRate = Math.max(spec.rate, spec.rampFromRate ?? 0);
  // Requests waiting for a connection are kept up to what a full timeout at the peak rate needs.
  const maxInFlight = Math.min(1_000_000, spec.maxConnections + Math.ceil(peakRate * (spec.timeoutMs / 1000 + 1)));
  const inFlight = new InFlight();
  const startedAt = new Date();
  let closing = false;

  try {
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
      const warmDone = () => inFlight.dec();
      await runOpenLoop({
        schedule: warm,
        startPerf: warmStart,
        signal,
        fire: (n, dueAt) => {
          if (inFlight.count >= maxInFlight) return;
          inFlight.inc();
          warmupRequests++;
          spec.dispatch(pool, dueAt, n, false, warmDone).deadline = dueAt + spec.timeoutMs;
        },
      });
    }

    const rec = new Recorder(["rps", "errors", "target_rps", ...(spec.seriesKeys ?? [])], measureStart);
    const sendLag = createHistogram();
    const windowEndPlanned = measureStart + spec.durationS * 1000;
    let windowEnd = windowEndPlanned;
    let issuedInWindow = 0;
    let lateSends = 0;
    let dropped = 0;

    let completedCalls = 0;
    let lastDoneAt = measureStart;
    const done = (call: HttpCall, error: Error | null) => {
      inFlight.dec();
      if (closing) return; // torn down by cancellation: not a measurement
      const now = performance.now();
      completedCalls++;
      lastDoneAt = Math.max(lastDoneAt, now);
      const issuedAt = call.sentAt > 0 ? call.sentAt : now;
      const lagMs = issuedAt - call.startAt;
      recordMicros(sendLag, lagMs * 1000);
      if (lagMs > LATE_SEND_MS) lateSends++;
      if (issuedAt <= windowEnd + WINDOW_GRACE_MS) issuedInWindow++;
      spec.record(rec, call, error, now);
    };

    const checkpoint = checkpointer(ctx, rec, startedAt);
    const stopProgress = everySecond(() => {
      const now = performance.now();
      rec.tick(now);
      checkpoint(now);
      if (!ctx.onProgress) return;
      const progress = rec.progress(now, (now - measureStart) / (spec.durationS * 1000));
      ctx.onProgress(spec.progress ? spec.progress(rec, progress) : progress);
    });
    let loop: { fired: number; stoppedEarly: boolean };
    try {
      loop = await runOpenLoop({
        schedule,
        startPerf: measureStart,
        signal,
        fire: (n, dueAt) => {
          rec.count("target_rps", dueAt);
          if (inFlight.count >= maxInFlight) {
            dropped++;
            const now = performance.now();
            rec.add("requests");
            rec.add("failed");
            rec.count("rps", now);
            rec.count("errors", now);
            rec.error("dropped", `more than ${maxInFlight} requests waiting for a connection`);
            return;
          }
          inFlight.inc();
          spec.dispatch(pool, dueAt, n, true, done).deadline = dueAt + spec.timeoutMs;
        },
      });
      if (loop.stoppedEarly) windowEnd = Math.min(windowEndPlanned, performance.now());
      const drainMs = signal?.aborted ? CANCEL_GRACE_MS : spec.timeoutMs + 1000;
      await inFlight.drained(drainMs, signal);
      if (signal?.aborted && inFlight.count > 0) await inFlight.drained(CANCEL_GRACE_MS);
    } finally {
      stopProgress();
    }
    const canceled = loop.stoppedEarly;
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

    const invalidReasons: string[] = [];
    const lateFraction = lateSends / Math.max(1, completedCalls);
    if (targetRequests > 0 && issuedInWindow < MIN_ACHIEVED_FRACTION * targetRequests) {
      invalidReasons.push(
        `achieved ${achievedRps.toFixed(1)} req/s, below ${MIN_ACHIEVED_FRACTION * 100}% of the target ${targetRps.toFixed(1)} req/s: ${underloadCause(spec.maxConnections, sendLag)}`,
      );
    }
    if (lateFraction > MAX_LATE_FRACTION) {
      invalidReasons.push(
        `${lateSends} requests (${(lateFraction * 100).toFixed(1)}%) left more than ${LATE_SEND_MS} ms after their due time (max ${(sendLag.maxValue / 1000).toFixed(0)} ms): the engine could not keep the schedule (CPU, or all ${spec.maxConnections} connections busy)`,
      );
    }
    if (dropped > 0)
      invalidReasons.push(`${dropped} requests dropped: more than ${maxInFlight} waiting for a connection`);
    if (!canceled && issuedInWindow > 0 && completedCalls > 0 && completedRps < MIN_COMPLETED_FRACTION * achievedRps) {
      invalidReasons.push(
        `completed ${completedRps.toFixed(1)} responses/s, below ${MIN_COMPLETED_FRACTION * 100}% of the ${achievedRps.toFixed(1)} req/s sent: the target did not keep up (responses failed or took until ${((runtimeMs - windowMs) / 1000).toFixed(1)} s after the sending window)`,
      );
    }

    return rec.finish(endPerf, {
      startedAt,
      endedAt: new Date(),
      canceled,
      runtimeMs,
      invalidReasons,
      extra: {
        schedule: {
          targetRequests,
          issuedInWindow,
          sendLagP50Ms: sendLag.totalCount > 0 ? sendLag.getValueAtPercentile(50) / 1000 : null,
          sendLagP99Ms: sendLag.totalCount > 0 ? sendLag.getValueAtPercentile(99) / 1000 : null,
          sendLagMaxMs: sendLag.totalCount > 0 ? sendLag.maxValue / 1000 : null,
          lateSends,
          dropped,
          warmupRequests,
        },
      },
    });
  } finally {
    closing = true;
    await pool.destroy().catch(() => undefined);
  }
}

function underloadCause(maxConnections: number, sendLag: ReturnType<typeof createHistogram>): string {
  const p99 = sendLag.totalCount > 0 ? sendLag.getValueAtPercentile(99) / 1000 : 0;
  return `requests waited up to ${p99.toFixed(0)} ms (p99) before leaving; the engine's CPU or the ${maxConnections}-connection limit held them back`;
}
