import type { Db } from "../client";

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

export async function listProjects(db: Db, orgId: string) {
  const projects = await db.project.findMany({
    where: { orgId },
    orderBy: { createdAt: "asc" },
    include: { _count: { select: { runs: true, targets: true, scenarios: true } } },
  });
  return projects;
}

export async function createProject(db: Db, orgId: string, input: { name: string; description?: string }) {
  const base = slugify(input.name);
  let slug = base;
  for (let i = 2; await db.project.findUnique({ where: { orgId_slug: { orgId, slug } } }); i++) slug = `${base}-${i}`;
  return db.project.create({ data: { orgId, name: input.name, slug, description: input.description ?? "" } });
}

export async function getProject(db: Db, orgId: string, id: string) {
  return db.project.findFirst({ where: { orgId, id } });
}
