import type { Db } from "../client";
import { ConflictError, NotFoundError } from "../errors";

export function slugify(name: string): string {
  return (
    name
      .normalize("NFKD")
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 48) || "project"
  );
}

const counts = { _count: { select: { runs: true, targets: true, scenarios: true, instanceConfigs: true } } } as const;

export async function listProjects(db: Db, orgId: string) {
  return db.project.findMany({ where: { orgId }, orderBy: { createdAt: "asc" }, include: counts });
}

/** A new project; its slug comes from the name (made unique), or is the one given (refused when taken). */
export async function createProject(
  db: Db,
  orgId: string,
  input: { name: string; description?: string; slug?: string },
) {
  if (input.slug !== undefined) {
    if (await db.project.findUnique({ where: { orgId_slug: { orgId, slug: input.slug } } })) {
      throw new ConflictError("slug", `a project with the slug "${input.slug}" already exists`);
    }
    return db.project.create({
      data: { orgId, name: input.name, slug: input.slug, description: input.description ?? "" },
    });
  }
  const base = slugify(input.name);
  let slug = base;
  for (let i = 2; await db.project.findUnique({ where: { orgId_slug: { orgId, slug } } }); i++) slug = `${base}-${i}`;
  return db.project.create({ data: { orgId, name: input.name, slug, description: input.description ?? "" } });
}

/** Refuse a project id that is not one of the organization's (reported at `projectId`). */
export async function assertProjectInOrg(db: Db, orgId: string, projectId: string): Promise<void> {
  const project = await db.project.findFirst({ where: { orgId, id: projectId }, select: { id: true } });
  if (!project) throw new NotFoundError("projectId", "project not found");
}

export async function getProject(db: Db, orgId: string, id: string) {
  return db.project.findFirst({ where: { orgId, id }, include: counts });
}

/** Renaming keeps the slug: links and API tokens scoped by it keep working. */
export async function updateProject(db: Db, orgId: string, id: string, input: { name: string; description?: string }) {
  const { count } = await db.project.updateMany({
    where: { orgId, id },
    data: { name: input.name, ...(input.description !== undefined ? { description: input.description } : {}) },
  });
  if (count === 0) throw new NotFoundError("id", "project not found");
  return db.project.findUniqueOrThrow({ where: { id }, include: counts });
}

/**
 * Deleting a project deletes its targets, configs, scenarios and every run with its results, so
 * the caller must type the project's name, as a guard against deleting the wrong one.
 */
export async function deleteProject(db: Db, orgId: string, id: string, confirmName: string) {
  const project = await db.project.findFirst({ where: { orgId, id }, select: { id: true, name: true } });
  if (!project) throw new NotFoundError("id", "project not found");
  if (confirmName.trim() !== project.name) {
    throw new ConflictError("confirmName", `type the project's name (${project.name}) to delete it`);
  }
  const active = await db.run.count({ where: { projectId: id, status: { in: ["queued", "running"] } } });
  if (active > 0) {
    throw new ConflictError("confirmName", `${active} run(s) of this project are queued or running; cancel them first`);
  }
  await db.project.delete({ where: { id } });
  return { id };
}
