import type { TMonitorConfig } from "@benchboard/core";
import type { Db } from "../client";
import type { TargetKind } from "../generated/prisma/enums";

export interface TargetInput {
  projectId: string;
  name: string;
  kind: TargetKind;
  baseUrl: string;
  headers?: { name: string; value: string }[];
  monitors?: TMonitorConfig[];
  configApplyUrl?: string | null;
}

export async function listTargets(db: Db, orgId: string, projectId?: string) {
  return db.target.findMany({
    where: { orgId, ...(projectId ? { projectId } : {}) },
    orderBy: { createdAt: "asc" },
    select: publicTargetSelect,
  });
}

/** Everything about a target except its encrypted secrets. */
export const publicTargetSelect = {
  id: true,
  orgId: true,
  projectId: true,
  name: true,
  kind: true,
  baseUrl: true,
  headers: true,
  monitors: true,
  configApplyUrl: true,
  createdAt: true,
  updatedAt: true,
} as const;

export async function createTarget(db: Db, orgId: string, input: TargetInput) {
  return db.target.create({
    data: {
      orgId,
      projectId: input.projectId,
      name: input.name,
      kind: input.kind,
      baseUrl: input.baseUrl,
      headers: input.headers ?? [],
      monitors: (input.monitors ?? []) as object[],
      configApplyUrl: input.configApplyUrl ?? null,
    },
    select: publicTargetSelect,
  });
}

export async function getTarget(db: Db, orgId: string, id: string) {
  return db.target.findFirst({ where: { orgId, id }, select: publicTargetSelect });
}
