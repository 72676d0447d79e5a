import type { EngineProgress, TRunResultData } from "@benchboard/core";
import type { Stall } from "./open-loop";
import type { PinnedAddress } from "./target-safety";

export interface EngineContext {
  /** The target's base URL, e.g. `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** Headers from the target (secrets already decrypted); scenario headers override them. */
  headers?: Record<string, string>;
  /** Aborting stops the load within a second; the result keeps what was measured. */
  signal?: AbortSignal;
  onProgress?: (progress: EngineProgress) => void;
  /**
   * Called about every `checkpointMs` with the result so far, so a worker can store partial
   * results that survive its own death. Not called for the final result.
   */
  onCheckpoint?: (partial: EngineResult) => void;
  checkpointMs?: number;
  /** Caps tighter than HARD_LIMITS (e.g. the organization's); the engine refuses specs beyond them. */
  limits?: Partial<EngineLimits>;
  /**
   * The address the target's host was checked at: every connection goes there, so a name cannot
   * resolve to something else between the check and the load.
   */
  pin?: PinnedAddress;
  /**
   * Run the open model's event loop and pacing thread at real-time priority (Linux, where the
   * process may; up to `REALTIME_MAX_RATE`, see `realtime.ts`). The result's
   * `extra.schedule.scheduling` says what the run got, and `schedulingNote` why not when refused.
   */
  realtime?: boolean;
  /**
   * After a stall (a send overdue by more than the stall bound: the process was frozen, the host
   * too busy, a laptop asleep), the open model drops what is overdue and sends nothing more until
   * this answers whether the run is still running: `false`, or a failure, stops the load (the
   * result is `canceled`). Without it, sending goes on at once. See `startOpenLoop`.
   */
  confirmAfterStall?: (stall: Stall) => Promise<boolean>;
  /** Called once a second with the engine's counters (used to stop runs at a dead target). */
  onTick?: (counters: Readonly<Record<string, number>>, nowPerf: number) => void;
}

export interface EngineLimits {
  maxRate: number;
  maxConcurrency: number;
  maxDurationS: number;
  maxRequests: number;
  maxUsers: number;
}

export interface EngineResult extends TRunResultData {
  startedAt: Date;
  endedAt: Date;
  /** True when the run was stopped by its signal before the planned end. */
  canceled: boolean;
}

/** Raised for configuration the engine refuses before sending anything (bad URL, bounds). */
export class EngineConfigError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = "EngineConfigError";
  }
}

export const DEFAULT_CHECKPOINT_MS = 5_000;
