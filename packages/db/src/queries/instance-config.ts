import type { Db } from "../client";

export interface InstanceConfigInput {
  projectId: string;
  name: string;
  instanceType?: string | null;
  vcpu?: number | null;
  memoryMb?: number | null;
  cpuLimit?: number | null;
  replicas?: number;
  knobs?: Record<string, string | number | boolean>;
}

export async function listInstanceConfigs(db: Db, orgId: string, projectId?: string) {
  return db.instanceConfig.findMany({
    where: { orgId, ...(projectId ? { projectId } : {}) },
    orderBy: { createdAt: "asc" },
  });
}

export async function createInstanceConfig(db: Db, orgId: string, input: InstanceConfigInput) {
  return db.instanceConfig.create({
    data: {
      orgId,
      projectId: input.projectId,
      name: input.name,
      instanceType: input.instanceType ?? null,
      vcpu: input.vcpu ?? null,
      memoryMb: input.memoryMb ?? null,
      cpuLimit: input.cpuLimit ?? null,
      replicas: input.replicas ?? 1,
      knobs: input.knobs ?? {},
    },
  });
}
