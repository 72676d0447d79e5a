import type { TScenarioSpec } from "./scenario";

export const MAX_SHARDS = 64;

export class ShardPlanError extends Error {
  readonly field = "shards";
  constructor(message: string) {
    super(message);
    this.name = "ShardPlanError";
  }
}

/** Split `total` into `n` integer parts that differ by at most one, larger parts first. */
export function splitEvenly(total: number, n: number): number[] {
  const base = Math.floor(total / n);
  const extra = total - base * n;
  return Array.from({ length: n }, (_, i) => base + (i < extra ? 1 : 0));
}

/**
 * Split a scenario into `n` shard specs whose load adds up to the scenario's: arrival rates and
 * connection caps divide for open models, virtual users and request counts for closed ones.
 * Durations stay the same, so shards run side by side. A chat scenario cannot be split: a
 * message's deliveries are counted at the room's other members, which must live in one process.
 */
export function planShards(spec: TScenarioSpec, n: number): TScenarioSpec[] {
  if (!Number.isInteger(n) || n < 1 || n > MAX_SHARDS)
    throw new ShardPlanError(`must be a whole number from 1 to ${MAX_SHARDS}`);
  if (n === 1) return [spec];
  switch (spec.engine) {
    case "http-open":
    case "llm": {
      const connections = splitEvenly(spec.maxConnections, n);
      if (connections.some((c) => c < 1))
        throw new ShardPlanError(`maxConnections (${spec.maxConnections}) is below the shard count`);
      return connections.map((maxConnections) => ({
        ...spec,
        rate: spec.rate / n,
        maxConnections,
        ...(spec.engine === "http-open" && spec.rampFromRate !== undefined
          ? { rampFromRate: spec.rampFromRate / n }
          : {}),
      }));
    }
    case "http-closed": {
      if (spec.concurrency < n) throw new ShardPlanError(`concurrency (${spec.concurrency}) is below the shard count`);
      const users = splitEvenly(spec.concurrency, n);
      const requests = spec.requests !== undefined ? splitEvenly(spec.requests, n) : undefined;
      if (requests?.some((r) => r < 1))
        throw new ShardPlanError(`requests (${spec.requests}) is below the shard count`);
      return users.map((concurrency, i) => ({
        ...spec,
        concurrency,
        ...(requests ? { requests: requests[i] } : {}),
      }));
    }
    case "ws-chat":
      throw new ShardPlanError(
        "chat scenarios run in one worker: every member of a room must be in one process to count deliveries",
      );
  }
}
