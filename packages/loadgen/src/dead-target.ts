import { DEAD_TARGET_REASON } from "@benchboard/core";

export const DEAD_TARGET_AFTER_MS = 5_000;
export const DEAD_TARGET_MESSAGE = DEAD_TARGET_REASON;

/**
 * Watches an engine's counters once a second. The target is dead when, for DEAD_TARGET_AFTER_MS,
 * nothing succeeded, attempts were made, and every one of them ended in a refused connection
 * (an HTTP error or a slow answer means the target is there, and is measured as such).
 */
export class DeadTargetWatch {
  private since: { at: number; requests: number; refused: number; success: number } | null;
  dead = false;

  constructor(startPerf = performance.now()) {
    this.since = { at: startPerf, requests: 0, refused: 0, success: 0 };
  }

  check(counters: Readonly<Record<string, number>>, nowPerf: number): boolean {
    const requests = counters.requests ?? 0;
    const refused = counters.failed_connections ?? 0;
    const success = counters.success ?? 0;
    const last = this.since;
    if (last === null || success > last.success || requests - last.requests > refused - last.refused) {
      // Something other than a refusal happened (or this is the first look): start over.
      this.since = { at: nowPerf, requests, refused, success };
      return false;
    }
    if (refused > last.refused && nowPerf - last.at >= DEAD_TARGET_AFTER_MS - 50) this.dead = true;
    return this.dead;
  }
}
