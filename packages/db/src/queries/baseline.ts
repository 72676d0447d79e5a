import type { Db } from "../client";
import type { Prisma } from "../generated/prisma/client";
import { type RunHistoryPoint, runHistoryPointSelect, toRunHistoryPoint } from "./run-facts";

/** Candidates read to find N runs of head's config: older runs of other configs are skipped. */
const BASELINE_SCAN = 200;

/** A config snapshot as text with sorted keys, so equal configs compare equal whatever their key order. */
export function configKey(snapshot: unknown): string {
  const sort = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(sort);
    if (value && typeof value === "object") {
      return Object.fromEntries(
        Object.keys(value as Record<string, unknown>)
          .sort()
          .map((k) => [k, sort((value as Record<string, unknown>)[k])]),
      );
    }
    return value ?? null;
  };
  return JSON.stringify(sort(snapshot ?? null));
}

export type BranchBaselineRun = RunHistoryPoint;

/**
 * The baseline for `head` on a branch: its last `take` runs of the same scenario (the same stored
 * scenario, or the same project and scenario name) and the same instance config, that succeeded,
 * are valid measurements, are not excluded and not part of a sweep, created no later than head,
 * head itself left out. Oldest first, with stored and derived metrics.
 */
export async function branchBaselineRuns(
  db: Db,
  orgId: string,
  head: {
    id: string;
    projectId: string;
    scenarioId: string | null;
    scenarioName: string;
    configSnapshot: unknown;
    createdAt: Date;
  },
  branch: string,
  take: number,
): Promise<BranchBaselineRun[]> {
  const sameScenario: Prisma.RunWhereInput[] = [{ projectId: head.projectId, scenarioName: head.scenarioName }];
  if (head.scenarioId) sameScenario.push({ scenarioId: head.scenarioId });
  const rows = await db.run.findMany({
    where: {
      orgId,
      branch,
      status: "succeeded",
      excluded: false,
      sweepId: null,
      id: { not: head.id },
      createdAt: { lte: head.createdAt },
      // An invalid measurement is no baseline: its figures may be the load generator's.
      result: { is: { valid: true } },
      OR: sameScenario,
    },
    orderBy: [{ createdAt: "desc" }, { number: "desc" }],
    take: BASELINE_SCAN,
    select: runHistoryPointSelect,
  });
  const config = configKey(head.configSnapshot);
  return rows
    .filter((r) => configKey(r.configSnapshot) === config)
    .slice(0, take)
    .reverse()
    .map(toRunHistoryPoint);
}
