import type { EngineProgress, TRunResultData } from "@benchboard/core";
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
   * Put the process's other threads (V8's collector and compiler, libuv's pool) at SCHED_IDLE
   * for open-model runs up to `IDLE_HELPERS_MAX_RATE`, so they never hold the core while the
   * event loop or the pacing thread waits (Linux; only where the engine runs on the main thread;
   * see `idleHelperThreads` in `realtime.ts`). Without CAP_SYS_NICE they stay there afterwards.
   * The result's `extra.schedule.helperThreads` says what the run got, and `helperThreadsNote`
   * why not.
   */
  idleHelpers?: boolean;
  /**
   * Give the open model's event loop and pacing thread the kernel's shortest slice (0.1 ms) for
   * runs up to `LOOP_SLICE_MAX_RATE`, so that they win their wake-ups (Linux
   * 6.12+, no privilege; see `shortLoopSlice` in `realtime.ts`). The result's
   * `extra.schedule.loopSlice` says what the run got, and `loopSliceNote` why not. Also puts
   * the pacing thread at SCHED_BATCH at any rate, so that waking it never preempts the loop
   * (`batchPacingThread`; `extra.schedule.pacingThread`, `pacingThreadNote`).
   */
  loopSlice?: boolean;
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
