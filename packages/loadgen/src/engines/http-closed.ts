import {
  createHistogram,
  encodeHistogram,
  recordMicros,
  summarizeHistogram,
  type TErrorEntry,
  type TScenarioSpec,
} from "@benchboard/core";
import { Pool } from "undici";
import type { EngineContext, EngineResult } from "../types";
import { resolveTargetUrl } from "../url";

type HttpClosedSpec = Extract<TScenarioSpec, { engine: "http-closed" }>;

/**
 * Closed model: `concurrency` virtual users each send a request, wait for the full response,
 * and send the next, until `requests` have been sent or `durationS` has passed.
 */
export async function runHttpClosed(spec: HttpClosedSpec, ctx: EngineContext): Promise<EngineResult> {
  const url = resolveTargetUrl(ctx.baseUrl, spec.request.path);
  const pool = new Pool(url.origin, { connections: spec.concurrency, pipelining: 1 });
  const histogram = createHistogram();
  const statusCounts: Record<string, number> = {};
  const errors = new Map<string, TErrorEntry>();
  const headers = { ...ctx.headers, ...spec.request.headers };
  const startedAt = new Date();
  const t0 = performance.now();
  const deadline = spec.durationS !== undefined ? t0 + spec.durationS * 1000 : Number.POSITIVE_INFINITY;
  const total = spec.requests ?? Number.POSITIVE_INFINITY;
  let sent = 0;
  let done = 0;
  let failed = 0;
  let resBytes = 0;

  const addError = (kind: string, message: string, status?: number) => {
    const key = `${kind}|${status ?? ""}|${message}`;
    const e = errors.get(key);
    if (e) e.count++;
    else errors.set(key, { kind, message, count: 1, ...(status !== undefined ? { status } : {}) });
  };

  const progressTimer = setInterval(() => {
    const elapsedMs = performance.now() - t0;
    const s = summarizeHistogram(histogram);
    ctx.onProgress?.({
      elapsedMs,
      fraction: Number.isFinite(total) ? done / total : Math.min(1, elapsedMs / (deadline - t0)),
      requests: done,
      errors: failed,
      rps: done / (elapsedMs / 1000),
      latencyP50Ms: s?.latency_p50 ?? null,
      latencyP99Ms: s?.latency_p99 ?? null,
    });
  }, 1000);

  const user = async (index: number) => {
    if (spec.rampUpS > 0) {
      await sleep((spec.rampUpS * 1000 * index) / spec.concurrency, ctx.signal);
    }
    while (sent < total && performance.now() < deadline && !ctx.signal?.aborted) {
      sent++;
      const start = performance.now();
      try {
        const res = await pool.request({
          path: url.pathname + url.search,
          method: spec.request.method,
          headers,
          body: spec.request.body,
          headersTimeout: spec.timeoutMs,
          bodyTimeout: spec.timeoutMs,
          signal: ctx.signal,
        });
        const body = await res.body.arrayBuffer();
        resBytes += body.byteLength;
        recordMicros(histogram, (performance.now() - start) * 1000);
        statusCounts[String(res.statusCode)] = (statusCounts[String(res.statusCode)] ?? 0) + 1;
        if (res.statusCode >= 400) {
          failed++;
          addError("status", `HTTP ${res.statusCode}`, res.statusCode);
        }
      } catch (err) {
        if (ctx.signal?.aborted) break;
        failed++;
        addError(errorKind(err), errorMessage(err));
      }
      done++;
    }
  };

  try {
    await Promise.all(Array.from({ length: spec.concurrency }, (_, i) => user(i)));
  } finally {
    clearInterval(progressTimer);
    await pool.destroy().catch(() => undefined);
  }
  const endedAt = new Date();
  const runtimeS = (performance.now() - t0) / 1000;
  const latency = summarizeHistogram(histogram);
  const metrics: Record<string, number> = {
    requests: done,
    success: done - failed,
    failed,
    rps: done / runtimeS,
    runtime_ms: runtimeS * 1000,
    ...(latency ?? {}),
  };
  if (done > 0) {
    metrics.success_rate = ((done - failed) / done) * 100;
    metrics.res_bytes_avg = resBytes / Math.max(1, done - errorsWithoutResponse(errors));
  }
  return {
    startedAt,
    endedAt,
    canceled: ctx.signal?.aborted ?? false,
    metrics,
    histogram: histogram.totalCount > 0 ? encodeHistogram(histogram) : undefined,
    statusCounts,
    errors: [...errors.values()],
    stages: {},
    valid: true,
    invalidReasons: [],
    series: {},
  };
}

function errorsWithoutResponse(errors: Map<string, TErrorEntry>): number {
  let n = 0;
  for (const e of errors.values()) if (e.kind !== "status") n += e.count;
  return n;
}

function errorKind(err: unknown): string {
  const code = (err as { code?: string }).code ?? "";
  if (code.includes("TIMEOUT")) return "timeout";
  if (code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "ECONNRESET") return "connect";
  return "transport";
}

function errorMessage(err: unknown): string {
  const e = err as { code?: string; message?: string };
  return [e.code, e.message].filter(Boolean).join(": ") || String(err);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(t);
      resolve();
    });
  });
}
