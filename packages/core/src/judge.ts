import type { TErrorEntry } from "./run-result";

/** What a verdict on a finished run reads from the engine's result. */
export interface JudgedResult {
  canceled: boolean;
  metrics: Record<string, number>;
  errors: TErrorEntry[];
  series: Record<string, { values: readonly (number | null)[] }>;
  extra?: Record<string, unknown>;
}

/** Why a run at a target that refused every connection was stopped early. */
export const DEAD_TARGET_REASON = "the target refused every connection for 5 s";

export interface RunVerdict {
  status: "succeeded" | "failed" | "canceled";
  error: string | null;
}

/** Seconds of nothing but failures at the end of a run that mean the target went down. */
export const TARGET_DOWN_AFTER_S = 3;

/** A run where nothing succeeded did not test the service: it failed, with the dominant error. */
export function judge(result: JudgedResult): RunVerdict {
  if (result.canceled) return { status: "canceled", error: "canceled by request" };
  if (result.extra?.deadTarget === true) return { status: "failed", error: DEAD_TARGET_REASON };
  const requests = result.metrics.requests ?? 0;
  const success = result.metrics.success ?? 0;
  const failed = result.metrics.failed ?? 0;
  const top = [...result.errors].sort((a, b) => b.count - a.count)[0];
  const what = top ? `${top.message || top.kind}` : "every request failed";
  if (requests > 0 && success === 0) {
    return {
      status: "failed",
      error: `target unreachable or failing: ${what} (${requests} of ${requests} requests failed)`,
    };
  }
  if (requests === 0 && result.metrics.messages === undefined) {
    return { status: "failed", error: "no requests were completed" };
  }
  // A capacity search's last plateaus are past the knee by design: failures there are its finding.
  const downFor = result.extra?.capacitySearch ? 0 : trailingOutageSeconds(result);
  if (downFor >= TARGET_DOWN_AFTER_S) {
    const runtimeS = Math.round((result.metrics.runtime_ms ?? 0) / 1000);
    return {
      status: "failed",
      error: `target stopped answering for the last ${downFor} s of ${runtimeS} s: ${what} (${failed} of ${requests} requests failed; results until then are kept)`,
    };
  }
  return { status: "succeeded", error: null };
}

/** Seconds at the end of the run in which requests were sent and every one of them failed. */
export function trailingOutageSeconds(result: Pick<JudgedResult, "series">): number {
  const sent = result.series.rps?.values ?? [];
  const errors = result.series.errors?.values ?? [];
  let seconds = 0;
  for (let i = sent.length - 1; i >= 0; i--) {
    // The rate series counts answered requests; refused connections show only as errors.
    const n = sent[i] ?? 0;
    const failed = errors[i] ?? 0;
    if (n === 0 && failed === 0) {
      // A final partial second with nothing sent neither proves nor disproves an outage.
      if (seconds === 0 && i === sent.length - 1) continue;
      break;
    }
    if (failed < n) break;
    seconds++;
  }
  return seconds;
}
