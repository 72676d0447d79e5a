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
 * Durations stay the same, so shards run side by side. A chat scenario splits by rooms: a
 * message's deliveries are counted at the room's other members, so every room lives whole in one
 * shard, with exactly the members it would have had in an unsplit run.
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
      return planChatShards(spec, n);
    case "capacity-search":
      // Each plateau's verdict decides the next rate, so the plateaus of one search run in one
      // process; a higher rate needs a stronger generator (an agent or a bigger worker).
      throw new ShardPlanError(
        "a capacity search runs on one worker or agent (each plateau's verdict picks the next rate); launch it with 1 shard",
      );
  }
}

type ChatSpec = Extract<TScenarioSpec, { engine: "ws-chat" }>;

/**
 * Users go round-robin over rooms, so room r has floor(users / rooms) members plus one when
 * r < users % rooms. Each shard takes a run of consecutive rooms and exactly their members; the
 * shard's own round-robin over its rooms gives each room the same member count again (the larger
 * rooms come first in both). Rooms and user ids are numbered on from the previous shard's.
 */
function planChatShards(spec: ChatSpec, n: number): ChatSpec[] {
  if (spec.rooms < n) throw new ShardPlanError(`rooms (${spec.rooms}) is below the shard count: a room is never split`);
  if (spec.poolSize < n) throw new ShardPlanError(`poolSize (${spec.poolSize}) is below the shard count`);
  const base = Math.floor(spec.users / spec.rooms);
  const extra = spec.users % spec.rooms;
  const membersOf = (room: number) => base + (room < extra ? 1 : 0);
  const pools = splitEvenly(spec.poolSize, n);
  let firstRoom = spec.firstRoom ?? 0;
  let firstUser = spec.firstUser ?? 0;
  let room = 0;
  return splitEvenly(spec.rooms, n).map((rooms, i) => {
    let users = 0;
    for (let r = room; r < room + rooms; r++) users += membersOf(r);
    if (users < 1) {
      throw new ShardPlanError(`users (${spec.users}) leave shard ${i + 1} without members; use fewer shards`);
    }
    const shard: ChatSpec = { ...spec, rooms, users, poolSize: pools[i]!, firstRoom, firstUser };
    room += rooms;
    firstRoom += rooms;
    firstUser += users;
    return shard;
  });
}
