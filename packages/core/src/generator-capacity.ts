/**
 * What one worker can drive with an open-model engine before its own lateness becomes material:
 * from the runs this organization measured (their achieved rate over the generator's CPU), or,
 * before any, from the figure measured by `bench/http-open.ts`. Used by the launch form to
 * suggest shards before the user launches past it.
 */

/** Share of a core the generator may use and still send on time (the rest absorbs bursts). */
export const GENERATOR_HEADROOM = 0.6;
/** Runs whose generator was nearly idle say little about its ceiling. */
const MIN_CPU_FOR_ESTIMATE = 0.05;

/**
 * Requests per second one fully busy core sends with each engine, measured by
 * `bench/http-open.ts` (engine CPU per request at 10,000 req/s against nginx). The LLM engine
 * parses every stream event, so its figure depends on the replies: none is assumed.
 */
export const MEASURED_RATE_PER_CORE: Readonly<Record<string, number>> = {
  "http-open": 25_000,
};

export interface GeneratorSample {
  /** Achieved rate of the whole run (all shards). */
  rps: number;
  /** Generator CPU per shard process, in cores. */
  generatorCpu: number;
  shards: number;
}

export interface WorkerCapacity {
  /** Requests per second one worker sends on time. */
  ratePerWorker: number;
  /** Where the figure comes from, in words. */
  basis: string;
}

export function workerCapacity(engine: string, samples: readonly GeneratorSample[]): WorkerCapacity | null {
  const perCore = samples
    .filter((s) => s.rps > 0 && s.generatorCpu >= MIN_CPU_FOR_ESTIMATE && s.shards >= 1)
    .map((s) => s.rps / s.shards / s.generatorCpu)
    .sort((a, b) => a - b);
  if (perCore.length > 0) {
    const median = perCore[Math.floor(perCore.length / 2)]!;
    return {
      ratePerWorker: Math.floor(median * GENERATOR_HEADROOM),
      basis: `measured on ${perCore.length} recent run${perCore.length === 1 ? "" : "s"} of this engine`,
    };
  }
  const measured = MEASURED_RATE_PER_CORE[engine];
  if (measured === undefined) return null;
  return { ratePerWorker: Math.floor(measured * GENERATOR_HEADROOM), basis: "measured by the engine benchmark" };
}

/** The fewest shards that keep each worker within its capacity. */
export function suggestedShards(rate: number, capacity: WorkerCapacity): number {
  if (!(rate > 0) || !(capacity.ratePerWorker > 0)) return 1;
  return Math.max(1, Math.ceil(rate / capacity.ratePerWorker));
}
