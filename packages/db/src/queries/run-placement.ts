import type { Db } from "../client";

/**
 * Where a run went: the label it was launched for and, per shard (one for an unsharded run),
 * the agent or worker that took it. Shard numbers are as people read them, from 1. Agents are the
 * organization's own, so their names are shown; install workers are named only to the install's
 * own organization (their ids name hosts).
 */
export interface RunPlacement {
  /** Where the run was sent: the organization's agents, or the install's workers. */
  runsOn: "agent" | "worker";
  /** The agent label (agent runs) or worker label it was launched for; null: any worker. */
  label: string | null;
  shardCount: number;
  shards: {
    /** 1-based. */
    shard: number;
    status: "queued" | "running" | "succeeded" | "failed" | "canceled";
    /** The agent that took it (agent runs), null while none has. */
    agent: string | null;
    /** The worker id that took it (install workers, shown to the install's own organization), else null. */
    worker: string | null;
    error: string | null;
  }[];
  /** Every agent that took part, in shard order, each once. */
  agents: string[];
}

/** The agent name in a worker id an agent's runs record (`agent:<name>:<id>`), or null for a worker. */
export function agentNameOf(workerId: string): string | null {
  const m = /^agent:(.+):[^:]+$/.exec(workerId);
  return m ? m[1]! : null;
}

type Status = RunPlacement["shards"][number]["status"];

export async function runPlacement(
  db: Db,
  run: {
    id: string;
    status: Status;
    shardCount: number;
    workerLabel: string | null;
    agentLabel: string | null;
    workerIds: string[];
    error: string | null;
  },
  revealWorkers: boolean,
): Promise<RunPlacement> {
  const runsOn = run.agentLabel ? "agent" : "worker";
  const who = (workerId: string | null) => {
    const agent = workerId ? agentNameOf(workerId) : null;
    return { agent, worker: workerId && agent === null && revealWorkers ? workerId : null };
  };
  let shards: RunPlacement["shards"];
  if (run.shardCount <= 1) {
    // The last id the run recorded is the one that ran it (a retried run records each).
    shards = [{ shard: 1, status: run.status, ...who(run.workerIds.at(-1) ?? null), error: run.error }];
  } else {
    const rows = await db.runShard.findMany({
      where: { runId: run.id },
      select: { index: true, status: true, workerId: true, error: true },
    });
    shards = Array.from({ length: run.shardCount }, (_, index) => {
      const row = rows.find((r) => r.index === index);
      return {
        shard: index + 1,
        status: (row?.status ?? "queued") as Status,
        ...who(row?.workerId ?? null),
        error: row?.error ?? null,
      };
    });
  }
  const agents = [...new Set(shards.map((s) => s.agent).filter((a): a is string => a !== null))];
  return { runsOn, label: run.agentLabel ?? run.workerLabel, shardCount: run.shardCount, shards, agents };
}
