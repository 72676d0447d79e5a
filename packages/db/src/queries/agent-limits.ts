import { peakLoad, planShards, type TScenarioSpec, ZScenarioSpec } from "@benchboard/core";
import type { Db } from "../client";
import { ConflictError } from "../errors";
import type { Prisma } from "../generated/prisma/client";
import { AGENT_OFFLINE_AFTER_MS } from "./agent";

/**
 * Agents announce their own ceilings (`--max-rate`, `--max-connections`, `--engine`), and only
 * receive runs — or shards — that fit them: the claim passes over a job an agent cannot run, so
 * another agent of the label takes it, and a launch that no online agent of the label could take
 * is refused. The agent still checks what it runs against its limits, as a last defence.
 */
export interface AgentLimits {
  /** Requests (or messages) per second at the peak; null: only the organization's caps. */
  maxRate: number | null;
  /** Connections (open-model pool, closed-model concurrency, chat users); null: only the caps. */
  maxConnections: number | null;
  /** Engines it runs; empty: every engine. */
  engines: string[];
}

/** What one shard of a run (or the whole unsharded run) asks of the agent that runs it. */
export interface AgentDemand {
  engine: string;
  rate: number | null;
  connections: number;
  /** 0-based shard index, null for an unsharded run. */
  shard: number | null;
  shardCount: number;
}

const fmt = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: 1 });

/** Each shard's demand (one entry for an unsharded run); a split the spec cannot take throws. */
export function agentDemands(spec: TScenarioSpec, shardCount: number): AgentDemand[] {
  const parts = shardCount > 1 ? planShards(spec, shardCount) : [spec];
  return parts.map((part, i) => {
    const peak = peakLoad(part);
    return {
      engine: part.engine,
      rate: peak.rate,
      connections: peak.connections,
      shard: shardCount > 1 ? i : null,
      shardCount,
    };
  });
}

/** Why an agent with these limits cannot run this demand, or null when it can. */
export function agentLimitMiss(limits: AgentLimits, demand: AgentDemand): string | null {
  if (limits.engines.length && !limits.engines.includes(demand.engine)) {
    return `runs the ${demand.engine} engine; the agent runs only ${limits.engines.join(", ")} (--engine)`;
  }
  if (limits.maxRate !== null && demand.rate !== null && demand.rate > limits.maxRate) {
    return `asks for ${fmt(demand.rate)} req/s; the agent takes at most ${fmt(limits.maxRate)} req/s (--max-rate)`;
  }
  if (limits.maxConnections !== null && demand.connections > limits.maxConnections) {
    return `opens ${fmt(demand.connections)} connections; the agent opens at most ${fmt(limits.maxConnections)} (--max-connections)`;
  }
  return null;
}

/** "the run", or "shard 2 of 4" (shard numbers as people read them: from 1). */
export function demandName(demand: Pick<AgentDemand, "shard" | "shardCount">): string {
  return demand.shard === null ? "the run" : `shard ${demand.shard + 1} of ${demand.shardCount}`;
}

/**
 * Whether an agent may take a run's job (the whole run, or one shard). A run that is gone or
 * whose scenario does not parse is taken as before, so the claim ends or fails it as it would.
 */
export async function agentMayTake(db: Db, limits: AgentLimits, runId: string, shard: number | null): Promise<boolean> {
  if (limits.maxRate === null && limits.maxConnections === null && !limits.engines.length) return true;
  const run = await db.run.findUnique({ where: { id: runId }, select: { scenarioSnapshot: true, shardCount: true } });
  if (!run) return true;
  const parsed = ZScenarioSpec.safeParse((run.scenarioSnapshot as { spec?: unknown } | null)?.spec);
  if (!parsed.success) return true;
  let demands: AgentDemand[];
  try {
    demands = agentDemands(parsed.data, run.shardCount);
  } catch {
    return true;
  }
  const demand = shard === null ? demands[0] : demands[shard];
  return demand ? agentLimitMiss(limits, demand) === null : true;
}

/**
 * Refuse a launch that no online agent of the label could run: some shard (or the run) asks
 * more than every one of them takes. Names the label and the limit; the caller may still queue
 * the run for an agent yet to start (`queueWithoutAgent`).
 */
export async function assertAgentLimitsServe(
  db: Db | Prisma.TransactionClient,
  orgId: string,
  agentLabel: string,
  specs: TScenarioSpec[],
  shardCount: number,
  field: string,
  now = Date.now(),
): Promise<void> {
  const online = await db.agent.findMany({
    where: {
      orgId,
      labels: { has: agentLabel },
      stoppedAt: null,
      lastSeenAt: { gt: new Date(now - AGENT_OFFLINE_AFTER_MS) },
    },
    select: { name: true, maxRate: true, maxConnections: true, engines: true },
  });
  // No online agent at all is the dead-label refusal's to say (or the caller asked to queue).
  if (!online.length) return;
  for (const spec of specs) {
    let demands: AgentDemand[];
    try {
      demands = agentDemands(spec, shardCount);
    } catch {
      // A split the scenario cannot take is refused by the launch itself.
      return;
    }
    for (const demand of demands) {
      const misses = online.map((a) => agentLimitMiss(a, demand));
      if (misses.some((m) => m === null)) continue;
      const first = misses[0]!;
      const why = misses.every((m) => m === first)
        ? first.replace("the agent", online.length > 1 ? "each of them" : `agent ${online[0]!.name}`)
        : `no one agent takes all of it (${online.map((a, i) => `${a.name}: ${misses[i]}`).join("; ")})`;
      throw new ConflictError(
        field,
        `no online agent labelled ${agentLabel} can take ${demandName(demand)}: it ${why}. Split it into more shards, raise an agent's limit, or launch with queueWithoutAgent (benchboard run --queue) to wait for an agent that can`,
      );
    }
  }
}
