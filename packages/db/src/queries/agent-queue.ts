import type { Db } from "../client";

/**
 * How much work waits for (or is held by) an organization's agents, per agent label: what an
 * autoscaler needs to bring up as many agents as a run has shards and let them go after.
 */
export interface AgentLabelQueue {
  label: string;
  /** Runs put on the agents' queue that no agent has taken yet. */
  waitingRuns: number;
  /** Shards of those runs, and of running runs, that no agent has taken yet (a run alone is one). */
  waitingShards: number;
  /** Shards (or unsharded runs) an agent is running now. */
  runningShards: number;
  /** `waitingShards + runningShards`: the agent slots this label needs at the moment. */
  activeShards: number;
}

/**
 * The organization's agent work by label, sorted by label. A queued run that was not put on the
 * queue yet (a repetition waiting for its group to continue) is not counted: no agent could take
 * it now, and counting it would bring up agents that sit idle. `onlyLabel` answers for one
 * label, with zeros when it has no work.
 */
export async function agentQueueByLabel(db: Db, orgId: string, onlyLabel?: string): Promise<AgentLabelQueue[]> {
  const runs = await db.run.findMany({
    where: {
      orgId,
      agentLabel: onlyLabel === undefined ? { not: null } : onlyLabel,
      OR: [{ status: "queued", dispatchedAt: { not: null } }, { status: "running" }],
    },
    select: { id: true, status: true, shardCount: true, agentLabel: true },
  });
  const sharded = runs.filter((r) => r.shardCount > 1).map((r) => r.id);
  const shardRows = sharded.length
    ? await db.runShard.groupBy({
        by: ["runId", "status"],
        where: { runId: { in: sharded }, status: { in: ["queued", "running"] } },
        _count: { _all: true },
      })
    : [];
  const shardCounts = new Map<string, { queued: number; running: number; rows: boolean }>();
  for (const row of shardRows) {
    const entry = shardCounts.get(row.runId) ?? { queued: 0, running: 0, rows: true };
    if (row.status === "queued") entry.queued += row._count._all;
    if (row.status === "running") entry.running += row._count._all;
    shardCounts.set(row.runId, entry);
  }

  const byLabel = new Map<string, AgentLabelQueue>();
  const entry = (label: string) => {
    let found = byLabel.get(label);
    if (!found) {
      found = { label, waitingRuns: 0, waitingShards: 0, runningShards: 0, activeShards: 0 };
      byLabel.set(label, found);
    }
    return found;
  };
  if (onlyLabel !== undefined) entry(onlyLabel);
  for (const run of runs) {
    if (!run.agentLabel) continue;
    const queue = entry(run.agentLabel);
    if (run.status === "queued") queue.waitingRuns += 1;
    if (run.shardCount > 1) {
      // Shard rows are written when the run is dispatched; before that every shard waits.
      const counts = shardCounts.get(run.id);
      if (counts) {
        queue.waitingShards += counts.queued;
        queue.runningShards += counts.running;
      } else if (run.status === "queued") {
        queue.waitingShards += run.shardCount;
      }
    } else if (run.status === "queued") {
      queue.waitingShards += 1;
    } else {
      queue.runningShards += 1;
    }
  }
  const result = [...byLabel.values()].sort((a, b) => a.label.localeCompare(b.label));
  for (const queue of result) queue.activeShards = queue.waitingShards + queue.runningShards;
  return result;
}
