import type { TScenarioSpec, TThreshold } from "@benchboard/core";
import type { Db } from "../client";

export async function listScenarios(db: Db, orgId: string, projectId?: string) {
  return db.scenario.findMany({ where: { orgId, ...(projectId ? { projectId } : {}) }, orderBy: { createdAt: "asc" } });
}

export async function createScenario(
  db: Db,
  orgId: string,
  input: { projectId: string; name: string; spec: TScenarioSpec; thresholds?: TThreshold[]; description?: string },
) {
  return db.scenario.create({
    data: {
      orgId,
      projectId: input.projectId,
      name: input.name,
      engine: input.spec.engine,
      spec: input.spec as object,
      thresholds: (input.thresholds ?? []) as object[],
      description: input.description ?? "",
    },
  });
}

export async function getScenario(db: Db, orgId: string, id: string) {
  return db.scenario.findFirst({ where: { orgId, id } });
}
