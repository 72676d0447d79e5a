import { randomBytes } from "node:crypto";
import { createHistogram, encodeHistogram, recordMicros, ZRunResultData, ZScenarioSpec } from "@benchboard/core";
import {
  API_TOKEN_SCOPES,
  createAgentToken,
  createApiToken,
  createComparison,
  createExecRun,
  createInstanceConfig,
  createInvitation,
  createNotificationEndpoint,
  createNotificationRule,
  createProject,
  createScenario,
  createSession,
  createShareLink,
  createTarget,
  createUploadedRun,
  type Db,
  getSessionUser,
} from "@benchboard/db";
import { verifyLoopbackOrigin } from "@benchboard/db/testing";
import type { Queue } from "bullmq";
import type { Context, Role } from "../trpc";

/**
 * One organization with a row of every kind, for tests that call each procedure or route as each
 * kind of caller: users of every role with sessions, two projects, a target, an instance config,
 * a scenario, two succeeded runs with results and series, a saved comparison, a sweep, a share
 * link, an API token and a pending invitation. Every fixture is its own organization, so one
 * test's mutations never reach another's rows.
 */
export interface OrgFixture {
  label: string;
  /**
   * Values found only in this organization's rows (in descriptions, notes, knobs, metrics and
   * series), so a result that carries its data without its ids still gives the leak away.
   */
  canaries: string[];
  org: { id: string; slug: string; name: string };
  users: Record<Role, { id: string; email: string; sessionToken: string; membershipId: string }>;
  project: { id: string; slug: string; name: string };
  /** A second project, for tokens limited to another project. */
  otherProject: { id: string; slug: string; name: string };
  target: { id: string; name: string };
  instanceConfig: { id: string; name: string };
  scenario: { id: string; name: string };
  /** Succeeded runs of `scenario` with a result, a histogram and per-second series. */
  runs: [{ id: string; number: number }, { id: string; number: number }];
  /** A run a client drives (`benchboard exec`), running, in `otherProject` (so `project` can be deleted). */
  execRun: { id: string };
  comparison: { id: string };
  sweep: { id: string };
  shareLink: { id: string; token: string };
  apiToken: { id: string; token: string };
  /** An agent token made by the member. */
  agentToken: { id: string; token: string };
  /** A webhook endpoint, a rule sending run failures to it, and an unread notice for the owners. */
  notificationEndpoint: { id: string };
  notificationRule: { id: string };
  notice: { id: string };
  invitation: { id: string; token: string; email: string };
}

export const ROLES: readonly Role[] = ["viewer", "member", "owner"];

function runResult(rps: number, marker: number) {
  const histogram = createHistogram();
  for (const ms of [4, 5, 6, 7, 30]) recordMicros(histogram, ms * 1000);
  const start = Date.UTC(2026, 0, 1);
  return ZRunResultData.parse({
    metrics: { requests: rps * 3, rps, latency_p50: 5, latency_p99: 30, failed: 0, latency_max: marker },
    histogram: encodeHistogram(histogram),
    series: {
      rps: { start, intervalMs: 1000, values: [rps - 1, rps, rps + 1] },
      latency_p99: { start, intervalMs: 1000, values: [29, 30, marker] },
    },
  });
}

export async function createOrgFixture(db: Db, label = randomBytes(4).toString("hex")): Promise<OrgFixture> {
  const text = `canary-${label}`;
  const marker = 31 + randomBytes(3).readUIntBE(0, 3) / 1e7;
  const org = await db.organization.create({
    data: { name: `Org ${label}`, slug: `org-${label}` },
    select: { id: true, slug: true, name: true },
  });
  // The fixture's target lives on 127.0.0.1:9; the organization has proved it controls that
  // origin (the suite's operator allows 127.0.0.1, see allowLoopbackTargets), so its scenario
  // may be launched there like any verified tenant's.
  await verifyLoopbackOrigin(db, org.id);
  const users = {} as OrgFixture["users"];
  await Promise.all(
    ROLES.map(async (role) => {
      const email = `${role}-${label}@example.test`;
      const user = await db.user.create({ data: { email, name: `${role} ${label}` } });
      const membership = await db.membership.create({ data: { orgId: org.id, userId: user.id, role } });
      const session = await createSession(db, user.id);
      users[role] = { id: user.id, email, sessionToken: session.token, membershipId: membership.id };
    }),
  );
  const [project, otherProject] = await Promise.all([
    createProject(db, org.id, { name: "Gateway", description: text }),
    createProject(db, org.id, { name: "Chat" }),
  ]);
  const [target, instanceConfig, scenario] = await Promise.all([
    createTarget(db, org.id, {
      projectId: project.id,
      name: "api",
      kind: "http",
      baseUrl: "http://127.0.0.1:9",
      configApplyUrl: "http://127.0.0.1:9/admin/config",
      headers: [{ name: "x-canary", value: text }],
    }),
    createInstanceConfig(db, org.id, { projectId: project.id, name: "small", vcpu: 2, knobs: { pool: 8, note: text } }),
    createScenario(db, org.id, {
      projectId: project.id,
      name: "steady",
      spec: ZScenarioSpec.parse({ engine: "http-open", rate: 10, durationS: 1 }),
      description: text,
    }),
  ]);
  const runs: { id: string; number: number }[] = [];
  for (const rps of [1000, 1100]) {
    const { run } = await createUploadedRun(db, org.id, {
      projectId: project.id,
      source: "upload",
      scenarioName: scenario.name,
      instanceConfig: { name: instanceConfig.name, vcpu: 2, knobs: { pool: 8 } },
      result: runResult(rps, marker),
      branch: "main",
      startedAt: new Date(Date.UTC(2026, 0, 1)),
      endedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, 3)),
      notes: text,
      createdById: users.member.id,
    });
    runs.push({ id: run.id, number: run.number });
  }
  const [first, second] = runs as OrgFixture["runs"];
  const agentToken = await createAgentToken(db, org.id, { name: "lab agents", createdById: users.member.id });
  const { endpoint } = await createNotificationEndpoint(
    db,
    org.id,
    // A public address: saving it needs no name lookup and no allow-list entry.
    { name: `hook ${label}`, channel: "webhook", url: "https://93.184.215.14/benchboard" },
    randomBytes(32),
  );
  const rule = await createNotificationRule(db, org.id, {
    name: `failures ${label}`,
    events: ["run.failed"],
    endpointIds: [endpoint.id],
  });
  const notice = await db.orgNotice.create({ data: { orgId: org.id, kind: "test", message: `notice ${text}` } });
  const execRun = await createExecRun(db, org.id, { projectId: otherProject.id, tool: "k6", scenarioName: "wrapped" });
  const [comparison, sweep, shareLink, apiToken, invitation] = await Promise.all([
    createComparison(db, org.id, {
      title: "1000 vs 1100",
      runIds: [first.id, second.id],
      baselineRunId: first.id,
      notes: text,
      createdById: users.member.id,
    }),
    db.sweep.create({
      data: {
        orgId: org.id,
        projectId: project.id,
        name: "pool",
        scenarioId: scenario.id,
        targetId: target.id,
        instanceConfigId: instanceConfig.id,
        parameter: "knobs.pool",
        values: [8, 16],
        metric: "rps",
        includedRunIds: [first.id, second.id],
        status: "succeeded",
      },
      select: { id: true },
    }),
    createShareLink(db, org.id, { runId: first.id, createdById: users.member.id }),
    createApiToken(db, org.id, {
      name: "ci",
      scopes: [...API_TOKEN_SCOPES],
      createdById: users.member.id,
    }),
    createInvitation(db, org.id, {
      email: `invitee-${label}@example.test`,
      role: "member",
      invitedById: users.owner.id,
    }),
  ]);
  return {
    label,
    canaries: [text, String(marker)],
    org,
    users,
    project: { id: project.id, slug: project.slug, name: project.name },
    otherProject: { id: otherProject.id, slug: otherProject.slug, name: otherProject.name },
    target: { id: target.id, name: target.name },
    instanceConfig: { id: instanceConfig.id, name: instanceConfig.name },
    scenario: { id: scenario.id, name: scenario.name },
    runs: [first, second],
    execRun: { id: execRun.id },
    comparison: { id: comparison.id },
    sweep,
    shareLink: { id: shareLink.id, token: shareLink.token },
    apiToken: { id: apiToken.record.id, token: apiToken.token },
    agentToken: { id: agentToken.record.id, token: agentToken.token },
    notificationEndpoint: { id: endpoint.id },
    notificationRule: { id: rule.id },
    notice: { id: notice.id },
    invitation: { id: invitation.invitation.id, token: invitation.token, email: invitation.invitation.email },
  };
}

/**
 * The tRPC context the web handler would build for a request carrying this session cookie: the
 * session resolved (unknown, expired and deleted sessions are anonymous), and the organization
 * chosen by slug among the user's organizations (memberships, then demo organizations).
 */
export async function sessionContext(
  deps: { db: Db; queue: Queue; secretKey?: Buffer | null },
  sessionToken: string | null,
  orgSlug?: string,
): Promise<Context> {
  const found = await getSessionUser(deps.db, sessionToken);
  const orgs = found?.orgs ?? [];
  const chosen = orgs.find((m) => m.org.slug === orgSlug) ?? orgs[0] ?? null;
  return {
    db: deps.db,
    queue: deps.queue,
    orgId: chosen?.orgId ?? null,
    userId: found?.user.id ?? null,
    role: chosen?.role ?? null,
    secretKey: deps.secretKey ?? null,
    session: { token: sessionToken, set: () => {}, clear: () => {} },
  };
}

/** Bookkeeping stamps that reads legitimately move (last use of a token, link or session). */
const USAGE_STAMPS = new Set(["lastViewedAt", "lastUsedAt", "lastSeenAt"]);

/**
 * Every row that belongs to the organization (and its members' accounts and sessions), ordered
 * by id, without usage stamps: two snapshots are equal exactly when nothing of the organization
 * was created, changed or deleted.
 */
export async function snapshotOrg(db: Db, orgId: string) {
  const byOrg = { where: { orgId }, orderBy: { id: "asc" as const } };
  const ofRuns = { where: { run: { orgId } } };
  const [
    organization,
    memberships,
    invitations,
    apiTokens,
    projects,
    targets,
    instanceConfigs,
    scenarios,
    runs,
    comparisons,
    shareLinks,
    sweeps,
  ] = await Promise.all([
    db.organization.findUnique({ where: { id: orgId } }),
    db.membership.findMany(byOrg),
    db.invitation.findMany(byOrg),
    db.apiToken.findMany(byOrg),
    db.project.findMany(byOrg),
    db.target.findMany(byOrg),
    db.instanceConfig.findMany(byOrg),
    db.scenario.findMany(byOrg),
    db.run.findMany(byOrg),
    db.comparison.findMany(byOrg),
    db.shareLink.findMany(byOrg),
    db.sweep.findMany(byOrg),
  ]);
  const [verifiedOrigins, notificationEndpoints, notificationRules, notices] = await Promise.all([
    db.verifiedOrigin.findMany(byOrg),
    db.notificationEndpoint.findMany(byOrg),
    db.notificationRule.findMany(byOrg),
    db.orgNotice.findMany(byOrg),
  ]);
  const [runResults, series, runShards, users, sessions] = await Promise.all([
    db.runResult.findMany({ ...ofRuns, orderBy: { runId: "asc" } }),
    db.series.findMany({ ...ofRuns, orderBy: { id: "asc" } }),
    db.runShard.findMany({ ...ofRuns, orderBy: { id: "asc" } }),
    db.user.findMany({ where: { memberships: { some: { orgId } } }, orderBy: { id: "asc" } }),
    db.session.findMany({ where: { user: { memberships: { some: { orgId } } } }, orderBy: { id: "asc" } }),
  ]);
  const snapshot = {
    organization,
    memberships,
    invitations,
    apiTokens,
    projects,
    targets,
    instanceConfigs,
    scenarios,
    runs,
    runResults,
    series,
    runShards,
    comparisons,
    shareLinks,
    sweeps,
    verifiedOrigins,
    notificationEndpoints,
    notificationRules,
    notices,
    users,
    sessions,
  };
  return JSON.parse(JSON.stringify(snapshot, (key, value) => (USAGE_STAMPS.has(key) ? undefined : value))) as Record<
    keyof typeof snapshot,
    unknown
  >;
}
export type OrgSnapshot = Awaited<ReturnType<typeof snapshotOrg>>;

/** Every id (and link or invitation token) of the organization's rows in a snapshot. */
export function idsIn(snapshot: OrgSnapshot): Set<string> {
  const ids = new Set<string>();
  const visit = (value: unknown) => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === "object") {
      for (const [key, v] of Object.entries(value)) {
        if ((key === "id" || key === "token") && typeof v === "string") ids.add(v);
        else visit(v);
      }
    }
  };
  visit(snapshot);
  return ids;
}
