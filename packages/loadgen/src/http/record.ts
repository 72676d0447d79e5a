import type { Recorder } from "../recorder";
import { errorKind, errorMessage, type HttpCall } from "./call";

/**
 * Record one finished HTTP call. Latency is recorded for every response, HTTP errors included
 * (they were answered), and not for transport failures, which have no response time.
 * Returns whether the call succeeded (a response below 400).
 */
export function recordHttpCall(
  rec: Recorder,
  call: HttpCall,
  error: Error | null,
  nowPerf: number,
  reqBodyBytes: number,
): boolean {
  // Named property updates: this runs once per request on the raw-throughput path.
  const c = rec.counters as unknown as HotCounters;
  c.requests++;
  c.req_bytes_total += reqBodyBytes;
  c.req_bytes_count++;
  if (error !== null) {
    c.failed++;
    const kind = errorKind(error);
    // A refused connection is an attempt, not a response: it is counted apart and not in the rate.
    if (kind === "connect") rec.add("failed_connections");
    else rec.count("rps", nowPerf);
    rec.count("errors", nowPerf);
    rec.error(kind, errorMessage(error));
    return false;
  }
  // rps count, status and latency in one call that finds the second once.
  rec.response(nowPerf, (nowPerf - call.startAt) * 1000, call.status);
  c.res_bytes_total += call.resBytes;
  c.res_bytes_count++;
  if (call.serverTiming !== null) rec.serverTiming(call.serverTiming);
  if (call.status >= 400) {
    c.failed++;
    rec.count("errors", nowPerf);
    rec.error("status", `HTTP ${call.status}`, call.status);
    return false;
  }
  c.success++;
  return true;
}

/** Counters the Recorder creates up front. */
interface HotCounters {
  requests: number;
  success: number;
  failed: number;
  req_bytes_total: number;
  req_bytes_count: number;
  res_bytes_total: number;
  res_bytes_count: number;
}
