import { randomBytes } from "node:crypto";
import { ImportError } from "@benchboard/core/importers";
import {
  ConflictError,
  type Db,
  hashToken,
  INVITATION_TTL_MS,
  NotFoundError,
  newToken,
  requestPasswordReset,
  requestSignUp,
} from "@benchboard/db";
import { TRPCError } from "@trpc/server";
import { ZodError } from "zod";
import { createCaller } from "../root";
import { type Context, issuesByPath, type Role } from "../trpc";
import type { OrgFixture } from "./org-fixture";

/** Who a builder builds input for (some inputs depend on it, e.g. an invitation to their email). */
export interface Who {
  kind: string;
  orgId: string | null;
  email: string | null;
  role: Role | null;
}
export interface BuildContext {
  db: Db;
  who: Who;
}
export type Build = (f: OrgFixture, c: BuildContext) => unknown;

const unique = () => randomBytes(4).toString("hex");
/** The account auth.signIn signs in to; tests that call it create it with signUp. */
export const SIGN_IN = { email: `signin-${unique()}@example.test`, password: "a long password 1" };
const DRILL_YAML = [
  "base: 'http://localhost:8000'",
  "iterations: 20",
  "concurrency: 2",
  "plan:",
  "  - name: list",
  "    request:",
  "      url: /api/customers",
].join("\n");

/** A public receiver address: saving it needs no name lookup and no allow-list entry. */
const RECEIVER_URL = "https://93.184.215.14/benchboard";

/** A fresh invitation addressed to the caller with the role they already have (accepting changes nothing). */
async function invitationFor(db: Db, orgId: string, email: string, role: Role) {
  const token = newToken();
  await db.invitation.create({
    data: { orgId, email, role, tokenHash: hashToken(token), expiresAt: new Date(Date.now() + INVITATION_TTL_MS) },
  });
  return token;
}

/** A working reset link for an account of its own (using it ends only that account's sessions). */
async function resetTokenForNewAccount(db: Db) {
  const email = `reset-${unique()}@example.test`;
  await db.user.create({ data: { email } });
  const reset = await requestPasswordReset(db, email);
  if (!reset) throw new Error("no reset link was made for a new account");
  return reset.token;
}

/**
 * Valid input for every procedure, built from the fixture, that succeeds for a caller allowed to
 * call it. "none" marks procedures without input, so that every procedure is listed here. Names
 * that must be unique are new on every build, so one fixture can take several creates.
 */
export const INPUTS: Record<string, Build | "none"> = {
  "auth.signUp": () => ({ email: `new-${unique()}@example.test`, password: "a long password 2" }),
  "auth.confirmSignUp": async (_f, { db }) => ({
    token: (await requestSignUp(db, { email: `confirm-${unique()}@example.test`, password: "a long password 3" }))
      .token,
  }),
  "auth.signIn": () => SIGN_IN,
  "auth.signOut": "none",
  "auth.me": "none",
  "auth.installState": "none",
  "auth.invitation": (f) => ({ token: f.invitation.token }),
  "auth.requestPasswordReset": () => ({ email: SIGN_IN.email }),
  "auth.passwordReset": async (_f, { db }) => ({ token: await resetTokenForNewAccount(db) }),
  "auth.resetPassword": async (_f, { db }) => ({
    token: await resetTokenForNewAccount(db),
    password: "a new long password",
  }),
  "auth.acceptInvitation": async (f, { db, who }) => ({
    token:
      who.orgId === f.org.id && who.email && who.role
        ? await invitationFor(db, f.org.id, who.email, who.role)
        : f.invitation.token,
  }),
  "org.list": "none",
  "org.current": "none",
  "org.update": () => ({ name: "Renamed org" }),
  "org.forRun": (f) => ({ runId: f.runs[0].id }),
  "install.role": "none",
  "install.get": "none",
  "install.update": () => ({ signupOpen: true }),
  "install.retention": "none",
  "install.organizations": "none",
  "install.updateOrgCaps": (f) => ({ orgId: f.org.id, caps: { maxRate: 500 } }),
  "member.list": "none",
  "member.invite": () => ({ email: `someone-${unique()}@example.test`, role: "viewer" }),
  "member.invitations": "none",
  "member.revokeInvitation": (f) => ({ id: f.invitation.id }),
  "member.updateRole": (f) => ({ id: f.users.viewer.membershipId, role: "member" }),
  "member.remove": (f) => ({ id: f.users.viewer.membershipId }),
  "apiToken.list": "none",
  "apiToken.create": (f) => ({ name: "deploy", projectId: f.project.id, scopes: ["runs:read"] }),
  "apiToken.revoke": (f) => ({ id: f.apiToken.id }),
  "agent.list": "none",
  "agent.labels": "none",
  "agent.tokens": "none",
  "agent.createToken": () => ({ name: `lab-${unique()}` }),
  "agent.revokeToken": (f) => ({ id: f.agentToken.id }),
  // An agent that stopped an hour ago, new on every build: removing one is allowed only offline.
  "agent.remove": async (f, { db }) => {
    const stoppedAt = new Date(Date.now() - 3_600_000);
    const agent = await db.agent.create({
      data: { orgId: f.org.id, tokenId: f.agentToken.id, name: `gone-${unique()}`, lastSeenAt: stoppedAt, stoppedAt },
    });
    return { name: agent.name };
  },
  "project.list": "none",
  "project.byId": (f) => ({ id: f.project.id }),
  "project.caps": "none",
  "project.create": () => ({ name: "New project", description: "made by the matrix" }),
  "project.update": (f) => ({ id: f.project.id, name: "Gateway v2" }),
  "project.delete": (f) => ({ id: f.project.id, confirmName: f.project.name }),
  "project.setBadges": (f) => ({ id: f.project.id, badgesPublic: true }),
  "target.list": (f) => ({ projectId: f.project.id }),
  "target.byId": (f) => ({ id: f.target.id }),
  "target.create": (f) => ({
    projectId: f.project.id,
    name: `api-${unique()}`,
    kind: "http",
    baseUrl: "http://127.0.0.1:9",
  }),
  "target.update": (f) => ({ id: f.target.id, name: "api", kind: "http", baseUrl: "http://127.0.0.1:10" }),
  "target.delete": (f) => ({ id: f.target.id }),
  "target.testMonitors": (f) => ({ targetId: f.target.id }),
  "target.verification": (f) => ({ targetId: f.target.id }),
  "target.verify": (f) => ({ targetId: f.target.id, method: "http" }),
  "target.probe": (f) => ({ targetId: f.target.id }),
  "instanceConfig.list": (f) => ({ projectId: f.project.id }),
  "instanceConfig.byId": (f) => ({ id: f.instanceConfig.id }),
  "instanceConfig.create": (f) => ({ projectId: f.project.id, name: `large-${unique()}`, vcpu: 8 }),
  "instanceConfig.update": (f) => ({ id: f.instanceConfig.id, name: "small", vcpu: 4 }),
  "instanceConfig.clone": (f) => ({ id: f.instanceConfig.id, name: `small-${unique()}` }),
  "instanceConfig.delete": (f) => ({ id: f.instanceConfig.id }),
  "scenario.list": (f) => ({ projectId: f.project.id }),
  "scenario.byId": (f) => ({ id: f.scenario.id }),
  "scenario.create": (f) => ({
    projectId: f.project.id,
    name: `burst-${unique()}`,
    spec: { engine: "http-open", rate: 20, durationS: 2 },
  }),
  "scenario.update": (f) => ({
    id: f.scenario.id,
    name: "steady",
    spec: { engine: "http-open", rate: 12, durationS: 1 },
  }),
  "scenario.delete": (f) => ({ id: f.scenario.id }),
  "scenario.importDrill": () => ({ yaml: DRILL_YAML }),
  "run.list": (f) => ({ projectId: f.project.id }),
  "run.byId": (f) => ({ id: f.runs[0].id }),
  "run.launch": (f) => ({ targetId: f.target.id, scenarioId: f.scenario.id, instanceConfigId: f.instanceConfig.id }),
  "run.cancel": (f) => ({ id: f.runs[0].id }),
  "run.view": (f) => ({ id: f.runs[0].id }),
  "run.chart": (f) => ({ id: f.runs[0].id }),
  "run.update": (f) => ({ id: f.runs[0].id, notes: "checked", tags: ["reviewed"] }),
  "run.export": (f) => ({ id: f.runs[0].id }),
  "run.setPinned": (f) => ({ id: f.runs[0].id, pinned: true }),
  "run.workerCapacity": () => ({ engine: "http-open" }),
  "notification.endpoints": "none",
  "notification.rules": "none",
  "notification.deliveries": () => ({ take: 10 }),
  "notification.notices": "none",
  "notification.createEndpoint": () => ({ name: `hook-${unique()}`, channel: "webhook", url: RECEIVER_URL }),
  "notification.rotateSecret": (f) => ({ id: f.notificationEndpoint.id }),
  "notification.setEnabled": (f) => ({ id: f.notificationEndpoint.id, enabled: false }),
  "notification.deleteEndpoint": (f) => ({ id: f.notificationEndpoint.id }),
  "notification.sendTest": (f) => ({ id: f.notificationEndpoint.id }),
  "notification.createRule": (f) => ({
    name: `rule-${unique()}`,
    events: ["run.failed"],
    endpointIds: [f.notificationEndpoint.id],
  }),
  "notification.updateEndpoint": (f) => ({ id: f.notificationEndpoint.id, name: `hook-${unique()}` }),
  "notification.updateRule": (f) => ({ id: f.notificationRule.id, name: `rule-${unique()}` }),
  "notification.deleteRule": (f) => ({ id: f.notificationRule.id }),
  "notification.dismissNotice": (f) => ({ id: f.notice.id }),
  "upload.run": (f) => ({
    project: f.project.slug,
    format: "native",
    content: JSON.stringify({ schemaVersion: 1, tool: { name: "custom" }, result: { metrics: { rps: 900 } } }),
  }),
  "execRun.start": (f) => ({ project: f.project.slug, tool: "vegeta", scenario: "wrapped", tags: ["ci"] }),
  "execRun.progress": (f) => ({
    id: f.execRun.id,
    elapsedMs: 1_000,
    requests: 10,
    errors: 1,
    rps: 10,
    latencyP50Ms: 2,
    latencyP99Ms: 9,
    samples: [{ t: 1_795_168_801_000, rps: 10, p50: 2, p99: 9, errors: 1 }],
  }),
  "execRun.finish": (f) => ({
    id: f.execRun.id,
    status: "failed",
    error: "k6 exited with status 99",
    result: { metrics: { requests: 10, failed: 1 }, statusCounts: { "200": 9, "500": 1 } },
  }),
  "worker.list": "none",
  "worker.labels": "none",
  "comparison.view": (f) => ({ runIds: [f.runs[0].id, f.runs[1].id], baselineRunId: f.runs[0].id }),
  "comparison.list": "none",
  "comparison.byId": (f) => ({ id: f.comparison.id }),
  "comparison.create": (f) => ({
    title: "again",
    runIds: [f.runs[1].id, f.runs[0].id],
    baselineRunId: f.runs[1].id,
  }),
  "comparison.update": (f) => ({ id: f.comparison.id, title: "renamed" }),
  "comparison.delete": (f) => ({ id: f.comparison.id }),
  "sweep.list": "none",
  "sweep.byId": (f) => ({ id: f.sweep.id }),
  "sweep.cancel": (f) => ({ id: f.sweep.id }),
  "sweep.parameters": (f) => ({ scenarioId: f.scenario.id, instanceConfigId: f.instanceConfig.id }),
  "sweep.create": (f) => ({
    name: "pool sweep",
    targetId: f.target.id,
    scenarioId: f.scenario.id,
    instanceConfigId: f.instanceConfig.id,
    parameter: "knobs.pool",
    values: [4, 8],
    metric: "rps",
  }),
  "share.list": (f) => ({ runId: f.runs[0].id }),
  "share.create": (f) => ({ comparisonId: f.comparison.id, expiresInDays: 7 }),
  "share.revoke": (f) => ({ id: f.shareLink.id }),
  "share.view": (f) => ({ token: f.shareLink.token }),
  "trend.options": "none",
  "trend.view": (f) => ({ projectId: f.project.id, scenarioName: f.scenario.name, metric: "rps" }),
  "trend.thresholds": (f) => ({ projectId: f.project.id }),
  "trend.setThresholds": (f) => ({ projectId: f.project.id, thresholds: [{ metric: "rps", op: ">=", value: 900 }] }),
};

export type Outcome = { ok: true; value: unknown } | { ok: false; code: string; message: string; fields: string[] };

/** The input fields an error names: zod issue paths, or the field of a domain error. */
function fieldsOf(err: TRPCError): string[] {
  const cause = err.cause;
  if (cause instanceof ZodError) return Object.keys(issuesByPath(cause));
  if (cause instanceof NotFoundError || cause instanceof ConflictError) return [cause.field];
  // An uploaded file's error is located inside it (by line or document path): it is the content's.
  if (cause instanceof ImportError) return ["content", ...(cause.field ? [cause.field] : [])];
  return [];
}

/** Call a procedure by its dotted path through a server-side caller, and say how it ended. */
export async function callProcedure(ctx: Context, path: string, input: unknown): Promise<Outcome> {
  let fn: unknown = createCaller(ctx);
  for (const key of path.split(".")) fn = (fn as Record<string, unknown>)[key];
  try {
    return { ok: true, value: await (fn as (input: unknown) => Promise<unknown>)(input) };
  } catch (err) {
    if (err instanceof TRPCError) return { ok: false, code: err.code, message: err.message, fields: fieldsOf(err) };
    return { ok: false, code: "THROWN", message: err instanceof Error ? err.message : String(err), fields: [] };
  }
}
