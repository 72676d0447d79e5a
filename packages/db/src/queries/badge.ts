import { derivedContext, withDerivedMetrics } from "@benchboard/core";
import { hashToken } from "../auth/tokens";
import type { Db } from "../client";
import { NotFoundError } from "../errors";
import { storedThresholds } from "./upload";

/**
 * Status badges: the latest value of one metric of a scenario on its project's default branch,
 * with the thresholds' verdict. Served without an account only for projects whose owners made
 * badges public, or to the holder of a live share link of one of the project's runs.
 */

export async function setProjectBadges(
  db: Db,
  orgId: string,
  projectId: string,
  input: { badgesPublic: boolean; defaultBranch?: string },
) {
  const { count } = await db.project.updateMany({
    where: { orgId, id: projectId },
    data: { badgesPublic: input.badgesPublic, ...(input.defaultBranch ? { defaultBranch: input.defaultBranch } : {}) },
  });
  if (!count) throw new NotFoundError("id", "project not found");
}

export interface BadgeFigure {
  scenario: string;
  metric: string;
  branch: string;
  value: number | null;
  /** pass / fail / not_measured for thresholds on this metric; else the run's overall outcome. */
  verdict: "pass" | "fail" | "not_measured" | "none";
  runNumber: number | null;
}

/** The project a badge may show, or null (unknown, not public, and no valid share token). */
async function badgeProject(db: Db, projectId: string, shareToken: string | null, now: Date) {
  const project = await db.project.findUnique({
    where: { id: projectId },
    select: { id: true, orgId: true, badgesPublic: true, defaultBranch: true },
  });
  if (!project) return null;
  if (project.badgesPublic) return project;
  if (!shareToken) return null;
  const link = await db.shareLink.findUnique({
    where: { tokenHash: hashToken(shareToken) },
    select: {
      orgId: true,
      revokedAt: true,
      expiresAt: true,
      run: { select: { projectId: true } },
      comparison: { select: { projectId: true, runIds: true } },
    },
  });
  if (!link || link.revokedAt || (link.expiresAt && link.expiresAt <= now) || link.orgId !== project.orgId) return null;
  if (link.run?.projectId === project.id || link.comparison?.projectId === project.id) return project;
  if (link.comparison?.runIds.length) {
    const inProject = await db.run.count({ where: { id: { in: link.comparison.runIds }, projectId: project.id } });
    if (inProject) return project;
  }
  return null;
}

export async function badgeFigure(
  db: Db,
  input: { projectId: string; scenario: string; metric: string; shareToken?: string | null; now?: Date },
): Promise<BadgeFigure | null> {
  const project = await badgeProject(db, input.projectId, input.shareToken ?? null, input.now ?? new Date());
  if (!project) return null;
  const run = await db.run.findFirst({
    where: {
      projectId: project.id,
      scenarioName: input.scenario,
      branch: project.defaultBranch,
      status: "succeeded",
      excluded: false,
      result: { isNot: null },
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    select: {
      number: true,
      configSnapshot: true,
      scenarioSnapshot: true,
      result: { select: { metrics: true, thresholdResults: true, extra: true } },
    },
  });
  const base = { scenario: input.scenario, metric: input.metric, branch: project.defaultBranch };
  if (!run?.result) return { ...base, value: null, verdict: "none", runNumber: null };
  const metrics = withDerivedMetrics(
    run.result.metrics as Record<string, number>,
    derivedContext(run.configSnapshot, run.scenarioSnapshot),
  );
  const thresholds = storedThresholds(run.result);
  const own = thresholds.verdicts.filter((v) => v.metric === input.metric);
  const verdict = own.some((v) => v.status === "fail")
    ? "fail"
    : own.some((v) => v.status === "not_measured")
      ? "not_measured"
      : own.length
        ? "pass"
        : thresholds.outcome;
  const value = metrics[input.metric];
  return { ...base, value: Number.isFinite(value) ? value! : null, verdict, runNumber: run.number };
}
