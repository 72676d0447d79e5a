import {
  checkScenarioCaps,
  isProbe,
  PROBE_MAX_REQUESTS,
  type TScenarioSpec,
  type TThreshold,
  ZScenarioSpec,
} from "@benchboard/core";
import type { Db } from "../client";
import { ConflictError, NotFoundError } from "../errors";
import { Prisma } from "../generated/prisma/client";
import { organizationCaps } from "./org";

export interface ScenarioInput {
  projectId: string;
  name: string;
  spec: TScenarioSpec;
  thresholds?: TThreshold[];
  description?: string;
}

function typed<T extends { spec: Prisma.JsonValue; thresholds: Prisma.JsonValue }>(row: T) {
  return { ...row, spec: row.spec as unknown as TScenarioSpec, thresholds: row.thresholds as unknown as TThreshold[] };
}

export async function listScenarios(db: Db, orgId: string, projectId?: string) {
  const rows = await db.scenario.findMany({
    where: { orgId, ...(projectId ? { projectId } : {}) },
    orderBy: { createdAt: "asc" },
    include: { _count: { select: { runs: true } } },
  });
  return rows.map(({ _count, ...row }) => ({ ...typed(row), runCount: _count.runs }));
}

export async function getScenario(db: Db, orgId: string, id: string) {
  const row = await db.scenario.findFirst({ where: { orgId, id } });
  return row ? typed(row) : null;
}

async function assertNameFree(db: Db, projectId: string, name: string, exceptId?: string) {
  const clash = await db.scenario.findFirst({
    where: { projectId, name, ...(exceptId ? { NOT: { id: exceptId } } : {}) },
    select: { id: true },
  });
  if (clash) throw new ConflictError("name", `a scenario named "${name}" already exists in this project`);
}

function rethrowUnique(err: unknown, name: string): never {
  if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === "P2002") {
    throw new ConflictError("name", `a scenario named "${name}" already exists in this project`);
  }
  throw err;
}

const fields = (input: Omit<ScenarioInput, "projectId">) => ({
  name: input.name,
  engine: input.spec.engine,
  spec: input.spec as Prisma.InputJsonValue,
  thresholds: (input.thresholds ?? []) as unknown as Prisma.InputJsonValue,
  description: input.description ?? "",
});

/**
 * Refuse a scenario that could never launch in its organization (over a cap), at the field that
 * sets it. Caps can still drop later: a launch checks them again.
 */
export async function assertScenarioWithinCaps(db: Db, orgId: string, spec: TScenarioSpec) {
  const violation = checkScenarioCaps(spec, await organizationCaps(db, orgId))[0];
  if (violation) throw new ConflictError(`spec.${violation.specField}`, `this scenario ${violation.message}`);
}

export async function createScenario(db: Db, orgId: string, input: ScenarioInput) {
  await assertNameFree(db, input.projectId, input.name);
  try {
    return typed(await db.scenario.create({ data: { orgId, projectId: input.projectId, ...fields(input) } }));
  } catch (err) {
    rethrowUnique(err, input.name);
  }
}

/** Runs keep the snapshot they were launched with, so editing a scenario never changes a stored run. */
export async function updateScenario(db: Db, orgId: string, id: string, input: Omit<ScenarioInput, "projectId">) {
  const current = await db.scenario.findFirst({ where: { orgId, id }, select: { projectId: true } });
  if (!current) throw new NotFoundError("id", "scenario not found");
  await assertNameFree(db, current.projectId, input.name, id);
  try {
    return typed(await db.scenario.update({ where: { id }, data: fields(input) }));
  } catch (err) {
    rethrowUnique(err, input.name);
  }
}

export async function deleteScenario(db: Db, orgId: string, id: string) {
  const { count } = await db.scenario.deleteMany({ where: { orgId, id } });
  if (count === 0) throw new NotFoundError("id", "scenario not found");
  return { id };
}

/** The scenario a target's "Send a probe" button launches, one per project. */
export const PROBE_SCENARIO_NAME = `Probe: ${PROBE_MAX_REQUESTS} × GET /`;

/**
 * The project's probe scenario, made the first time a probe is asked for: at most
 * PROBE_MAX_REQUESTS GET requests to the origin's root, one at a time — what an origin not yet
 * verified may receive. A scenario of that name that is no probe is left alone and named.
 */
export async function ensureProbeScenario(db: Db, orgId: string, projectId: string) {
  const existing = await db.scenario.findFirst({ where: { orgId, projectId, name: PROBE_SCENARIO_NAME } });
  if (existing) {
    const spec = ZScenarioSpec.safeParse(existing.spec);
    if (spec.success && isProbe(spec.data)) return existing;
    throw new ConflictError(
      "targetId",
      `the project's scenario "${PROBE_SCENARIO_NAME}" is not a probe; rename it so a probe scenario can be made`,
    );
  }
  const spec = ZScenarioSpec.parse({
    engine: "http-closed",
    request: { method: "GET", path: "/" },
    concurrency: 1,
    requests: PROBE_MAX_REQUESTS,
  });
  try {
    return await db.scenario.create({
      data: {
        orgId,
        projectId,
        name: PROBE_SCENARIO_NAME,
        description: "Sees whether the target answers, before its origin is verified.",
        engine: spec.engine,
        spec: spec as Prisma.InputJsonValue,
      },
    });
  } catch (err) {
    // Made at the same moment by another request: use that one.
    const made = await db.scenario.findFirst({ where: { orgId, projectId, name: PROBE_SCENARIO_NAME } });
    if (made) return made;
    throw err;
  }
}
