import { z } from "zod";
import type { EngineProgress, LlmProgress } from "./run-result";

/**
 * A run's live progress (`Run.progress`): written by the worker about once a second while the
 * run goes on, read by the live page through the run's event stream. One schema on both sides.
 */
export const ZLiveSample = z.object({
  /** Wall-clock time of the sample (ms since the epoch). */
  t: z.number(),
  rps: z.number(),
  /** Latency percentiles of that second alone (not of the run so far). */
  p50: z.number().nullable(),
  p99: z.number().nullable(),
  /** Errors so far (cumulative). */
  errors: z.number(),
  mem: z.number().nullable(),
  cpu: z.number().nullable(),
  queue: z.number().nullable(),
  /** Open model: the generator's send lag p99 so far, ms. */
  lag: z.number().nullable().optional(),
  /** LLM streams: that second's time to first token and inter-token p50/p99, ms. */
  ttft50: z.number().nullable().optional(),
  ttft99: z.number().nullable().optional(),
  itl50: z.number().nullable().optional(),
  itl99: z.number().nullable().optional(),
});
export type TLiveSample = z.infer<typeof ZLiveSample>;

/** Longest live latency figure kept (a day, in ms); anything larger is not a reading. */
export const LIVE_MS_MAX = 86_400_000;
/** Highest live output rate kept (tokens per second). */
export const LIVE_TOKENS_PER_S_MAX = 10_000_000;

const liveMs = z.number().finite().min(0).max(LIVE_MS_MAX).nullable();

/** An LLM run's live figures; null where nothing was measured yet (or the run does not stream). */
export const ZLiveLlm = z.object({
  ttftP50Ms: liveMs,
  ttftP99Ms: liveMs,
  itlP50Ms: liveMs,
  itlP99Ms: liveMs,
  tokensPerS: z.number().finite().min(0).max(LIVE_TOKENS_PER_S_MAX).nullable(),
  /** The last complete second alone (stream runs): what the per-second timelines plot. */
  intervalTtftP50Ms: liveMs.optional(),
  intervalTtftP99Ms: liveMs.optional(),
  intervalItlP50Ms: liveMs.optional(),
  intervalItlP99Ms: liveMs.optional(),
});
export type TLiveLlm = z.infer<typeof ZLiveLlm>;

export const ZLiveProgress = z.object({
  elapsedMs: z.number(),
  /** 0..1 when the engine knows its end (requests or duration), else null. */
  fraction: z.number().nullable(),
  requests: z.number(),
  errors: z.number(),
  rps: z.number(),
  latencyP50Ms: z.number().nullable(),
  latencyP99Ms: z.number().nullable(),
  /** The last few minutes of per-second figures, oldest first. */
  samples: z.array(ZLiveSample).default([]),
  /** Latest reading of each monitor gauge (e.g. `mem_bytes`, `queue_depth`). */
  monitors: z.record(z.string(), z.number().nullable()).default({}),
  /** LLM runs only; absent from other runs and from progress stored before it existed. */
  llm: ZLiveLlm.optional(),
  /** Open model: the generator's own send lag p99 and the wait for a connection p99 so far. */
  sendLagP99Ms: liveMs.optional(),
  connectionWaitP99Ms: liveMs.optional(),
});
export type TLiveProgress = z.infer<typeof ZLiveProgress>;

/** Stored progress as the live page reads it; anything malformed reads as none. */
export function parseLiveProgress(stored: unknown): TLiveProgress | null {
  if (stored === null || stored === undefined) return null;
  const parsed = ZLiveProgress.safeParse(stored);
  return parsed.success ? parsed.data : null;
}

/** Samples kept in the live progress: five minutes at one a second. */
export const LIVE_SAMPLES = 300;

/**
 * The last few minutes of per-second figures, kept in the run's progress so the live page can
 * draw rate, latency, errors, target memory and queue depth while the run goes on.
 */
export class LiveSamples {
  private readonly samples: TLiveSample[] = [];
  constructor(private readonly now: () => number = Date.now) {}

  add(p: EngineProgress, monitors: Record<string, number | null>): TLiveProgress {
    this.samples.push({
      t: this.now(),
      rps: p.rps,
      // Engines that report the last second's own percentiles chart those; a spike's recovery
      // never shows in a cumulative percentile.
      p50: p.intervalP50Ms !== undefined ? p.intervalP50Ms : p.latencyP50Ms,
      p99: p.intervalP99Ms !== undefined ? p.intervalP99Ms : p.latencyP99Ms,
      errors: p.errors,
      mem: monitors.mem_bytes ?? null,
      cpu: monitors.cpu_cores ?? null,
      queue: monitors.queue_depth ?? monitors["gauge.queue_depth"] ?? null,
      ...(p.sendLagP99Ms !== undefined ? { lag: p.sendLagP99Ms } : {}),
      ...(p.llm
        ? {
            ttft50: p.llm.intervalTtftP50Ms ?? null,
            ttft99: p.llm.intervalTtftP99Ms ?? null,
            itl50: p.llm.intervalItlP50Ms ?? null,
            itl99: p.llm.intervalItlP99Ms ?? null,
          }
        : {}),
    });
    if (this.samples.length > LIVE_SAMPLES) this.samples.shift();
    return { ...p, samples: [...this.samples], monitors };
  }
}

/**
 * Live figures across shards: counts and rates add; the slowest shard's p99 is shown. LLM
 * figures likewise: the first shard's medians, the slowest p99s, the mean per-client output rate.
 */
export function combineProgress(all: EngineProgress[]): EngineProgress {
  const fractions = all.map((p) => p.fraction).filter((f): f is number => f !== null);
  const p99s = all.map((p) => p.latencyP99Ms).filter((v): v is number => v !== null);
  return {
    elapsedMs: Math.max(...all.map((p) => p.elapsedMs)),
    fraction: fractions.length ? Math.min(...fractions) : null,
    requests: all.reduce((n, p) => n + p.requests, 0),
    errors: all.reduce((n, p) => n + p.errors, 0),
    rps: all.reduce((n, p) => n + p.rps, 0),
    latencyP50Ms: all[0]?.latencyP50Ms ?? null,
    latencyP99Ms: p99s.length ? Math.max(...p99s) : null,
    ...worstOf(all, "intervalP50Ms"),
    ...worstOf(all, "intervalP99Ms"),
    ...worstOf(all, "sendLagP99Ms"),
    ...worstOf(all, "connectionWaitP99Ms"),
    ...combineLlm(all.map((p) => p.llm).filter((l): l is LlmProgress => l !== undefined)),
  };
}

/** The highest of an optional figure across shards; absent when no shard reports it. */
function worstOf(
  all: EngineProgress[],
  key: "intervalP50Ms" | "intervalP99Ms" | "sendLagP99Ms" | "connectionWaitP99Ms",
): Partial<EngineProgress> {
  if (!all.some((p) => p[key] !== undefined)) return {};
  const values = all.map((p) => p[key]).filter((v): v is number => typeof v === "number");
  return { [key]: values.length ? Math.max(...values) : null };
}

function combineLlm(all: LlmProgress[]): { llm?: LlmProgress } {
  if (all.length === 0) return {};
  const present = (pick: (l: LlmProgress) => number | null) => all.map(pick).filter((v): v is number => v !== null);
  const first = (pick: (l: LlmProgress) => number | null) => present(pick)[0] ?? null;
  const max = (pick: (l: LlmProgress) => number | null) => {
    const v = present(pick);
    return v.length ? Math.max(...v) : null;
  };
  const rates = present((l) => l.tokensPerS);
  return {
    llm: {
      ttftP50Ms: first((l) => l.ttftP50Ms),
      ttftP99Ms: max((l) => l.ttftP99Ms),
      itlP50Ms: first((l) => l.itlP50Ms),
      itlP99Ms: max((l) => l.itlP99Ms),
      tokensPerS: rates.length ? rates.reduce((a, b) => a + b, 0) / rates.length : null,
      ...(all.some((l) => l.intervalTtftP50Ms !== undefined)
        ? {
            intervalTtftP50Ms: first((l) => l.intervalTtftP50Ms ?? null),
            intervalTtftP99Ms: max((l) => l.intervalTtftP99Ms ?? null),
            intervalItlP50Ms: first((l) => l.intervalItlP50Ms ?? null),
            intervalItlP99Ms: max((l) => l.intervalItlP99Ms ?? null),
          }
        : {}),
    },
  };
}
