import type { TKnobs } from "@benchboard/core";
import type { Db } from "../client";
import { ConflictError, NotFoundError } from "../errors";
import { Prisma } from "../generated/prisma/client";

export interface InstanceConfigInput {
  projectId: string;
  name: string;
  instanceType?: string | null;
  vcpu?: number | null;
  memoryMb?: number | null;
  cpuLimit?: number | null;
  replicas?: number;
  knobs?: TKnobs;
}

export async function listInstanceConfigs(db: Db, orgId: string, projectId?: string) {
  const rows = await db.instanceConfig.findMany({
    where: { orgId, ...(projectId ? { projectId } : {}) },
    orderBy: { createdAt: "asc" },
    include: { clonedFrom: { select: { id: true, name: true } }, _count: { select: { runs: true } } },
  });
  return rows.map(({ _count, ...row }) => ({ ...row, knobs: row.knobs as TKnobs, runCount: _count.runs }));
}

export async function getInstanceConfig(db: Db, orgId: string, id: string) {
  const row = await db.instanceConfig.findFirst({
    where: { orgId, id },
    include: { clonedFrom: { select: { id: true, name: true } } },
  });
  return row ? { ...row, knobs: row.knobs as TKnobs } : null;
}

async function assertNameFree(db: Db, projectId: string, name: string, field = "name", exceptId?: string) {
  const clash = await db.instanceConfig.findFirst({
    where: { projectId, name, ...(exceptId ? { NOT: { id: exceptId } } : {}) },
    select: { id: true },
  });
  if (clash) throw new ConflictError(field, `a config named "${name}" already exists in this project`);
}

function rethrowUnique(err: unknown, name: string, field = "name"): never {
  if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === "P2002") {
    throw new ConflictError(field, `a config named "${name}" already exists in this project`);
  }
  throw err;
}

const fields = (input: Omit<InstanceConfigInput, "projectId">) => ({
  name: input.name,
  instanceType: input.instanceType || null,
  vcpu: input.vcpu ?? null,
  memoryMb: input.memoryMb ?? null,
  cpuLimit: input.cpuLimit ?? null,
  replicas: input.replicas ?? 1,
  knobs: input.knobs ?? {},
});

export async function createInstanceConfig(db: Db, orgId: string, input: InstanceConfigInput) {
  await assertNameFree(db, input.projectId, input.name);
  try {
    return await db.instanceConfig.create({ data: { orgId, projectId: input.projectId, ...fields(input) } });
  } catch (err) {
    rethrowUnique(err, input.name);
  }
}

/** Runs keep the snapshot they were launched with, so editing a config never changes a stored run. */
export async function updateInstanceConfig(
  db: Db,
  orgId: string,
  id: string,
  input: Omit<InstanceConfigInput, "projectId">,
) {
  const current = await db.instanceConfig.findFirst({ where: { orgId, id }, select: { projectId: true } });
  if (!current) throw new NotFoundError("id", "instance config not found");
  await assertNameFree(db, current.projectId, input.name, "name", id);
  try {
    return await db.instanceConfig.update({ where: { id }, data: fields(input) });
  } catch (err) {
    rethrowUnique(err, input.name);
  }
}

/** A variant of a config: same size and knobs under a new name, remembering where it came from. */
export async function cloneInstanceConfig(db: Db, orgId: string, id: string, name: string) {
  const source = await db.instanceConfig.findFirst({ where: { orgId, id } });
  if (!source) throw new NotFoundError("id", "instance config not found");
  await assertNameFree(db, source.projectId, name);
  try {
    return await db.instanceConfig.create({
      data: {
        orgId,
        projectId: source.projectId,
        name,
        instanceType: source.instanceType,
        vcpu: source.vcpu,
        memoryMb: source.memoryMb,
        cpuLimit: source.cpuLimit,
        replicas: source.replicas,
        knobs: source.knobs ?? {},
        clonedFromId: source.id,
      },
    });
  } catch (err) {
    rethrowUnique(err, name);
  }
}

export async function deleteInstanceConfig(db: Db, orgId: string, id: string) {
  const { count } = await db.instanceConfig.deleteMany({ where: { orgId, id } });
  if (count === 0) throw new NotFoundError("id", "instance config not found");
  return { id };
}
