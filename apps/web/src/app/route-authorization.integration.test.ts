import { randomBytes } from "node:crypto";
import { readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  createOrgFixture,
  idsIn,
  type OrgFixture,
  type OrgSnapshot,
  snapshotOrg,
} from "@benchboard/api/testing/org-fixture";
import {
  API_TOKEN_SCOPES,
  type ApiTokenScope,
  agentWorkerId,
  announceAgent,
  createAgentToken,
  createApiToken,
  createExecRun,
  createSession,
  deleteSession,
  getDb,
  hashToken,
  type Role,
  revokeApiToken,
} from "@benchboard/db";
import { allowLoopbackTargets, createTestDatabase, type TestDatabase } from "@benchboard/db/testing";
import { createRunsQueue, DEFAULT_REDIS_URL } from "@benchboard/jobs";
import type { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { METHOD_NOT_ALLOWED } from "./api/v1/_lib/methods";

// Who may call which HTTP route, for every route file of the app as it is now: the routes are
// found by walking src/app for route.ts files and importing them as Next.js does, so a new
// route (or a new method on one) without an entry below fails here. REST routes are called with
// bearer tokens, the others with session cookies, against real PostgreSQL and Redis.

const APP_DIR = path.dirname(fileURLToPath(import.meta.url));
const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
type Refusal = { [METHOD_NOT_ALLOWED]?: true };
type Handler = (req: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response> | Response;

/** `/api/v1/runs/[id]` for `api/v1/runs/[id]/route.ts`; route groups `(name)` leave no segment. */
function routePattern(file: string): string {
  const segments = path
    .relative(APP_DIR, path.dirname(file))
    .split(path.sep)
    .filter((s) => s && !/^\(.*\)$/.test(s));
  return `/${segments.join("/")}`;
}

function findRouteFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return findRouteFiles(full);
    return /^route\.(ts|js)$/.test(entry.name) ? [full] : [];
  });
}

interface Call {
  /** Path and query, with the dynamic segments filled in. */
  url: string;
  params?: Record<string, string>;
  body?: string;
  contentType?: string;
}

type RouteSpec =
  | { access: "public"; why: string; call: (f: OrgFixture) => Call }
  | {
      access: "bearer";
      scope: ApiTokenScope;
      success: number;
      /** May create rows the request needs; runs before the organization is snapshotted. */
      call: (f: OrgFixture) => Call | Promise<Call>;
      /** What another organization's token gets when that is not a 404, and why it reveals nothing. */
      otherOrg?: { status: number; why: string };
    }
  | {
      access: "session";
      minRole: Role;
      call: (f: OrgFixture) => Call;
      check?: (res: Response) => Promise<void>;
      /** What another organization's session gets when that is not a 404, and why it reveals nothing. */
      otherOrg?: { status: number; why: string };
    }
  | {
      /** `benchboard agent`'s routes: an agent token of the organization, nothing else. */
      access: "agent";
      success: number;
      call: (a: AgentSetup) => Call;
    };

/** An agent of the fixture's organization, its token, and a run it claimed. */
interface AgentSetup {
  token: string;
  agentId: string;
  runId: string;
}

async function agentSetup(f: OrgFixture): Promise<AgentSetup> {
  const db = getDb(t.url);
  const { token, record } = await createAgentToken(db, f.org.id, { name: "lab", createdById: null });
  const agent = await announceAgent(
    db,
    { tokenId: record.id, orgId: f.org.id },
    { name: `a-${unique()}`, labels: ["lab"], capacity: 1, version: "" },
  );
  const run = await db.run.create({
    data: {
      orgId: f.org.id,
      projectId: f.project.id,
      number: 1_000 + randomBytes(2).readUInt16BE(0),
      status: "running",
      agentLabel: "lab",
      workerIds: [agentWorkerId(agent)],
      startedAt: new Date(),
      heartbeatAt: new Date(),
    },
  });
  return { token, agentId: agent.id, runId: run.id };
}

const agentRun = (what: string, body: (a: AgentSetup) => Record<string, unknown>) => (a: AgentSetup) => ({
  url: `/api/v1/agent/runs/${a.runId}/${what}`,
  params: { id: a.runId },
  ...json({ agentId: a.agentId, ...body(a) }),
});

const json = (body: unknown) => ({ body: JSON.stringify(body), contentType: "application/json" });

/**
 * A running client-driven run in `f.project`. The fixture's own exec run is in `otherProject`,
 * where a token limited to another project (the matrix uses `otherProject`) would be allowed.
 */
async function execRunInProject(f: OrgFixture): Promise<string> {
  const run = await createExecRun(getDb(t.url), f.org.id, {
    projectId: f.project.id,
    tool: "k6",
    scenarioName: "wrapped",
  });
  return run.id;
}

const trpcQuery = (procedure: string, input: unknown) =>
  `/api/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`;

/** Every route and method of the app, with how it is authorized and a request that should succeed. */
const ROUTES: Record<string, RouteSpec> = {
  "GET /api/health": {
    access: "public",
    why: "the probe of orchestrators and load balancers: says only that the process serves and whether PostgreSQL answers",
    call: () => ({ url: "/api/health" }),
  },
  "GET /api/v1/openapi.json": {
    access: "public",
    why: "the API's description",
    call: () => ({ url: "/api/v1/openapi.json" }),
  },
  "GET /api/v1/badge/[project]/[scenario]/[metric]": {
    access: "public",
    why: "a status badge, served only for projects whose owners made badges public (404 otherwise)",
    call: (f) => ({ url: `/api/v1/badge/${f.project.id}/nightly/latency_p99.svg` }),
  },
  "GET /api/v1/schema/run.json": {
    access: "public",
    why: "the JSON Schema of an upload",
    call: () => ({ url: "/api/v1/schema/run.json" }),
  },
  "GET /api/v1/runs/[id]": {
    access: "bearer",
    scope: "runs:read",
    success: 200,
    call: (f) => ({ url: `/api/v1/runs/${f.runs[0].id}`, params: { id: f.runs[0].id } }),
  },
  "POST /api/v1/runs": {
    access: "bearer",
    scope: "runs:write",
    success: 201,
    // By id: another organization has a project with the same slug, and would upload there.
    call: (f) => ({
      url: `/api/v1/runs?project=${f.project.id}`,
      body: JSON.stringify({ schemaVersion: 1, tool: { name: "custom" }, result: { metrics: { rps: 900 } } }),
      contentType: "application/json",
    }),
  },
  "POST /api/v1/runs/launch": {
    access: "bearer",
    scope: "runs:launch",
    success: 201,
    call: (f) => ({
      url: "/api/v1/runs/launch",
      body: JSON.stringify({ project: f.project.id, scenario: f.scenario.name, target: f.target.name }),
      contentType: "application/json",
    }),
  },
  "GET /api/v1/compare": {
    access: "bearer",
    scope: "runs:read",
    success: 200,
    call: (f) => ({ url: `/api/v1/compare?base=${f.runs[0].id}&head=${f.runs[1].id}` }),
  },
  "GET /api/v1/trend": {
    access: "bearer",
    scope: "runs:read",
    success: 200,
    call: (f) => ({
      url: `/api/v1/trend?project=${f.project.id}&scenario=${encodeURIComponent(f.scenario.name)}&metric=rps`,
    }),
  },
  "POST /api/v1/runs/exec": {
    access: "bearer",
    scope: "runs:write",
    success: 201,
    call: (f) => ({
      url: "/api/v1/runs/exec",
      ...json({ project: f.project.id, tool: "vegeta", scenario: "wrapped", tags: ["ci"] }),
    }),
  },
  "POST /api/v1/runs/[id]/progress": {
    access: "bearer",
    scope: "runs:write",
    success: 200,
    call: async (f) => {
      const id = await execRunInProject(f);
      return {
        url: `/api/v1/runs/${id}/progress`,
        params: { id },
        ...json({
          elapsedMs: 1_000,
          requests: 10,
          errors: 1,
          rps: 10,
          latencyP50Ms: 2,
          latencyP99Ms: 9,
          samples: [{ t: Date.now(), rps: 10, p50: 2, p99: 9, errors: 1 }],
        }),
      };
    },
  },
  "POST /api/v1/runs/[id]/finish": {
    access: "bearer",
    scope: "runs:write",
    success: 200,
    call: async (f) => {
      const id = await execRunInProject(f);
      return {
        url: `/api/v1/runs/${id}/finish`,
        params: { id },
        ...json({ status: "succeeded", result: { metrics: { requests: 10, failed: 0, rps: 10 } } }),
      };
    },
  },
  // Projects by id: another organization has projects with the same slugs, and would reach its own.
  "GET /api/v1/projects/[project]/config": {
    access: "bearer",
    scope: "config:read",
    success: 200,
    call: (f) => ({ url: `/api/v1/projects/${f.project.id}/config`, params: { project: f.project.id } }),
  },
  "PUT /api/v1/projects/[project]/config": {
    access: "bearer",
    scope: "config:write",
    success: 200,
    otherOrg: {
      status: 200,
      why: "apply creates the project the file names in the caller's own organization; this one is untouched",
    },
    call: (f) => ({
      url: `/api/v1/projects/${f.project.id}/config`,
      params: { project: f.project.id },
      ...json({
        version: 1,
        thresholds: [{ metric: "latency_p99", op: "<", value: 250 }],
        scenarios: [{ name: "burst", spec: { engine: "http-open", rate: 20, durationS: 1 } }],
      }),
    }),
  },
  "GET /api/v1/projects/[project]/[kind]": {
    access: "bearer",
    scope: "config:read",
    success: 200,
    call: (f) => ({
      url: `/api/v1/projects/${f.project.id}/scenarios`,
      params: { project: f.project.id, kind: "scenarios" },
    }),
  },
  "PUT /api/v1/projects/[project]/[kind]": {
    access: "bearer",
    scope: "config:write",
    success: 200,
    call: (f) => ({
      url: `/api/v1/projects/${f.project.id}/thresholds`,
      params: { project: f.project.id, kind: "thresholds" },
      ...json({ thresholds: [{ metric: "success_rate", op: ">=", value: 99 }] }),
    }),
  },
  "PUT /api/v1/projects/[project]/[kind]/[name]": {
    access: "bearer",
    scope: "config:write",
    success: 201,
    call: (f) => ({
      url: `/api/v1/projects/${f.project.id}/scenarios/burst`,
      params: { project: f.project.id, kind: "scenarios", name: "burst" },
      ...json({ spec: { engine: "http-open", rate: 20, durationS: 1 } }),
    }),
  },
  "DELETE /api/v1/projects/[project]/[kind]/[name]": {
    access: "bearer",
    scope: "config:write",
    success: 200,
    call: (f) => ({
      url: `/api/v1/projects/${f.project.id}/instance-configs/${f.instanceConfig.name}`,
      params: { project: f.project.id, kind: "instance-configs", name: f.instanceConfig.name },
    }),
  },
  "DELETE /api/v1/agents/[name]": {
    access: "bearer",
    scope: "config:write",
    success: 200,
    call: async (f) => {
      // An offline agent of the organization (it said it stopped): what may be removed.
      const db = getDb(t.url);
      const { record } = await createAgentToken(db, f.org.id, { name: "ci", createdById: null });
      const name = `gone-${unique()}`;
      await db.agent.create({
        data: { orgId: f.org.id, tokenId: record.id, name, labels: ["lab"], stoppedAt: new Date() },
      });
      return { url: `/api/v1/agents/${name}`, params: { name } };
    },
  },
  // Notifications belong to the organization: another organization's token lists and creates its own.
  "GET /api/v1/notifications/endpoints": {
    access: "bearer",
    scope: "config:read",
    success: 200,
    otherOrg: { status: 200, why: "it lists the caller's own organization's endpoints" },
    call: () => ({ url: "/api/v1/notifications/endpoints" }),
  },
  "POST /api/v1/notifications/endpoints": {
    access: "bearer",
    scope: "config:write",
    success: 201,
    otherOrg: { status: 201, why: "the endpoint is created in the caller's own organization; this one is untouched" },
    call: () => ({
      url: "/api/v1/notifications/endpoints",
      ...json({ name: "alerts", channel: "slack", url: "https://93.184.215.14/services/T0/B0/x" }),
    }),
  },
  "PATCH /api/v1/notifications/endpoints/[id]": {
    access: "bearer",
    scope: "config:write",
    success: 200,
    call: (f) => ({
      url: `/api/v1/notifications/endpoints/${f.notificationEndpoint.id}`,
      params: { id: f.notificationEndpoint.id },
      ...json({ name: "renamed hook" }),
    }),
  },
  "DELETE /api/v1/notifications/endpoints/[id]": {
    access: "bearer",
    scope: "config:write",
    success: 200,
    call: (f) => ({
      url: `/api/v1/notifications/endpoints/${f.notificationEndpoint.id}`,
      params: { id: f.notificationEndpoint.id },
    }),
  },
  "GET /api/v1/notifications/rules": {
    access: "bearer",
    scope: "config:read",
    success: 200,
    otherOrg: { status: 200, why: "it lists the caller's own organization's rules" },
    call: () => ({ url: "/api/v1/notifications/rules" }),
  },
  "POST /api/v1/notifications/rules": {
    access: "bearer",
    scope: "config:write",
    success: 201,
    call: (f) => ({
      url: "/api/v1/notifications/rules",
      ...json({ name: "regressions", events: ["regression.detected"], endpointIds: [f.notificationEndpoint.id] }),
    }),
  },
  "PATCH /api/v1/notifications/rules/[id]": {
    access: "bearer",
    scope: "config:write",
    success: 200,
    call: (f) => ({
      url: `/api/v1/notifications/rules/${f.notificationRule.id}`,
      params: { id: f.notificationRule.id },
      ...json({ events: ["run.failed", "run.finished"] }),
    }),
  },
  "DELETE /api/v1/notifications/rules/[id]": {
    access: "bearer",
    scope: "config:write",
    success: 200,
    call: (f) => ({
      url: `/api/v1/notifications/rules/${f.notificationRule.id}`,
      params: { id: f.notificationRule.id },
    }),
  },
  "POST /api/v1/agent/announce": {
    access: "agent",
    success: 200,
    call: () => ({ url: "/api/v1/agent/announce", ...json({ name: `a-${unique()}`, labels: ["lab"] }) }),
  },
  "POST /api/v1/agent/claim": {
    access: "agent",
    success: 204,
    call: (a) => ({ url: "/api/v1/agent/claim", ...json({ agentId: a.agentId, waitS: 0 }) }),
  },
  "GET /api/v1/agent/queue": {
    access: "agent",
    success: 200,
    call: () => ({ url: "/api/v1/agent/queue?label=lab" }),
  },
  "POST /api/v1/agent/stop": {
    access: "agent",
    success: 200,
    call: (a) => ({ url: "/api/v1/agent/stop", ...json({ agentId: a.agentId }) }),
  },
  "POST /api/v1/agent/runs/[id]/heartbeat": { access: "agent", success: 200, call: agentRun("heartbeat", () => ({})) },
  "POST /api/v1/agent/runs/[id]/ready": { access: "agent", success: 200, call: agentRun("ready", () => ({})) },
  "POST /api/v1/agent/runs/[id]/progress": {
    access: "agent",
    success: 200,
    call: agentRun("progress", () => ({
      progress: { elapsedMs: 1_000, fraction: 0.5, requests: 9, errors: 0, rps: 9, latencyP50Ms: 1, latencyP99Ms: 2 },
    })),
  },
  "POST /api/v1/agent/runs/[id]/checkpoint": {
    access: "agent",
    success: 200,
    call: agentRun("checkpoint", () => ({
      result: { metrics: { requests: 9 }, startedAt: Date.now() - 1_000, endedAt: Date.now() },
    })),
  },
  "POST /api/v1/agent/runs/[id]/result": {
    access: "agent",
    success: 200,
    call: agentRun("result", () => ({ status: "failed", error: "stopped" })),
  },
  "GET /api/runs/[runId]/events": {
    access: "session",
    minRole: "viewer",
    call: (f) => ({ url: `/api/runs/${f.runs[0].id}/events`, params: { runId: f.runs[0].id } }),
    async check(res) {
      // A reconnect delay, then the first state with its event id (a reconnect resumes from it).
      expect(await res.text()).toMatch(/^retry: \d+\n\nid: [^\n]+\nevent: run\ndata: \{"id":/);
    },
  },
  "GET /runs/[runId]/export": {
    access: "session",
    minRole: "viewer",
    call: (f) => ({ url: `/runs/${f.runs[0].id}/export?format=json`, params: { runId: f.runs[0].id } }),
    async check(res) {
      expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="run-1-/);
    },
  },
  "GET /runs/export": {
    access: "session",
    minRole: "viewer",
    call: () => ({ url: "/runs/export?format=json" }),
    async check(res) {
      expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="runs/);
    },
    otherOrg: {
      status: 200,
      why: "the runs list of the caller's own organization (the response is checked for leaks)",
    },
  },
  "GET /compare/export": {
    access: "session",
    minRole: "viewer",
    call: (f) => ({ url: `/compare/export?format=json&runs=${f.runs[0].id},${f.runs[1].id}` }),
    async check(res) {
      expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="comparison-/);
    },
  },
  "GET /sweeps/[sweepId]/export": {
    access: "session",
    minRole: "viewer",
    call: (f) => ({ url: `/sweeps/${f.sweep.id}/export?format=csv`, params: { sweepId: f.sweep.id } }),
    async check(res) {
      expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="/);
    },
  },
  "GET /api/trpc/[trpc]": {
    access: "session",
    minRole: "viewer",
    call: (f) => ({ url: trpcQuery("run.byId", { id: f.runs[0].id }), params: { trpc: "run.byId" } }),
  },
  "POST /api/trpc/[trpc]": {
    access: "session",
    minRole: "member",
    call: (f) => ({
      url: "/api/trpc/run.update",
      params: { trpc: "run.update" },
      body: JSON.stringify({ json: { id: f.runs[0].id, notes: "seen" } }),
      contentType: "application/json",
    }),
  },
};

const ORIGIN = "http://bench.test";
const unique = () => randomBytes(4).toString("hex");
const prefix = `bbroutes-${unique()}`;
let t: TestDatabase;
let redis: Redis;
let otherOrg: OrgFixture;
let otherOrgToken: string;
const tokenIds: string[] = [];
let handlers: { key: string; handler: Handler }[] = [];
let savedEnv: Record<string, string | undefined> = {};

beforeAll(async () => {
  t = await createTestDatabase();
  // Test servers listen on 127.0.0.1, which this install's operator allows as a target.
  await allowLoopbackTargets(t.db);
  // The app reads its environment once, when ~/env is first imported: point it at the test
  // database and a private queue prefix before importing any route.
  savedEnv = {
    DATABASE_URL: process.env.DATABASE_URL,
    BENCHBOARD_QUEUE_PREFIX: process.env.BENCHBOARD_QUEUE_PREFIX,
    BENCHBOARD_PUBLIC_URL: process.env.BENCHBOARD_PUBLIC_URL,
    BENCHBOARD_SECRET_KEY: process.env.BENCHBOARD_SECRET_KEY,
  };
  // Notification endpoints are stored encrypted: the app needs its secret key to create one.
  process.env.BENCHBOARD_SECRET_KEY ??= randomBytes(32).toString("base64");
  process.env.DATABASE_URL = t.url;
  // The app answers only for its public URL; requests here come from a browser on it.
  process.env.BENCHBOARD_PUBLIC_URL = ORIGIN;
  process.env.BENCHBOARD_QUEUE_PREFIX = prefix;
  redis = new Redis(process.env.REDIS_URL ?? DEFAULT_REDIS_URL);
  const files = findRouteFiles(APP_DIR);
  handlers = (
    await Promise.all(
      files.map(async (file) => {
        const mod = (await import(file)) as Record<string, unknown>;
        // Handlers that only refuse a method (405 naming what the path serves) are checked apart.
        return METHODS.filter((m) => typeof mod[m] === "function" && !(mod[m] as Refusal)[METHOD_NOT_ALLOWED]).map(
          (method) => ({
            key: `${method} ${routePattern(file)}`,
            handler: mod[method] as Handler,
          }),
        );
      }),
    )
  ).flat();
  otherOrg = await createOrgFixture(getDb(t.url), `other-${unique()}`);
  // The public badge route answers for a project whose owners made its badges public.
  await getDb(t.url).project.update({ where: { id: otherOrg.project.id }, data: { badgesPublic: true } });
  otherOrgToken = await token(otherOrg, [...API_TOKEN_SCOPES]);
});

afterAll(async () => {
  const globals = globalThis as unknown as {
    benchboardQueue?: Queue;
    benchboardWatchdog?: NodeJS.Timeout;
    benchboardAgentJobs?: { close(): Promise<void> };
  };
  await globals.benchboardAgentJobs?.close();
  // The app's process-wide watchdog and queue would outlive the test database.
  clearInterval(globals.benchboardWatchdog);
  await globals.benchboardQueue?.close();
  const queue = createRunsQueue(process.env.REDIS_URL ?? DEFAULT_REDIS_URL, prefix);
  await queue.obliterate({ force: true }).catch(() => {});
  await queue.close();
  if (tokenIds.length) await redis?.del(...tokenIds.map((id) => `bb:rl:api:${id}`));
  redis?.disconnect();
  await getDb(t.url).$disconnect();
  await t?.drop();
  for (const [name, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

async function token(
  f: OrgFixture,
  scopes: ApiTokenScope[],
  options: { projectId?: string; expiresAt?: Date } = {},
): Promise<string> {
  const created = await createApiToken(getDb(t.url), f.org.id, {
    name: scopes.join("+") || "none",
    scopes,
    createdById: null,
    projectId: options.projectId ?? null,
    expiresAt: options.expiresAt ?? null,
  });
  tokenIds.push(created.record.id);
  return created.token;
}

function request(call: Call, method: string, headers: Record<string, string>): Request {
  return new Request(`${ORIGIN}${call.url}`, {
    method,
    headers: {
      host: new URL(ORIGIN).host,
      origin: ORIGIN,
      ...headers,
      ...(call.contentType ? { "content-type": call.contentType } : {}),
    },
    body: method === "GET" || method === "HEAD" ? undefined : call.body,
  });
}

async function invoke(key: string, call: Call, headers: Record<string, string>): Promise<Response> {
  const entry = handlers.find((h) => h.key === key)!;
  const method = key.split(" ")[0]!;
  return entry.handler(request(call, method, headers), { params: Promise.resolve(call.params ?? {}) });
}

function changed(before: OrgSnapshot, after: OrgSnapshot): string[] {
  return (Object.keys(before) as (keyof OrgSnapshot)[]).filter(
    (k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]),
  );
}

/** This organization's ids and data in a response body, other than those the request carried. */
function leaks(f: OrgFixture, before: OrgSnapshot, call: Call, body: string): string[] {
  const sent = `${call.url} ${call.body ?? ""}`;
  return [...idsIn(before), ...f.canaries].filter((v) => body.includes(v) && !sent.includes(v));
}

describe("the app's routes", () => {
  it("are found by walking src/app", () => {
    // A walk that finds nothing would pass every check below vacuously.
    expect(handlers.map((h) => h.key)).toEqual(expect.arrayContaining(["POST /api/v1/runs", "GET /api/trpc/[trpc]"]));
  });

  it("each have an entry in this test, and no entry is left for a route that is gone", () => {
    const found = handlers.map((h) => h.key);
    expect(
      found.filter((k) => !(k in ROUTES)),
      "routes without an authorization entry",
    ).toEqual([]);
    expect(
      Object.keys(ROUTES).filter((k) => !found.includes(k)),
      "entries for routes that are gone",
    ).toEqual([]);
  });

  it("under /api/v1 answer every method they do not serve with 405 and an Allow header naming those they do", async () => {
    const files = findRouteFiles(path.join(APP_DIR, "api/v1"));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const mod = (await import(file)) as Record<string, unknown>;
      const served = METHODS.filter((m) => typeof mod[m] === "function" && !(mod[m] as Refusal)[METHOD_NOT_ALLOWED]);
      const route = routePattern(file);
      for (const method of METHODS.filter((m) => m !== "OPTIONS" && m !== "HEAD" && !served.includes(m))) {
        const refuse = mod[method] as Handler | undefined;
        expect(refuse, `${method} ${route} has a refusal`).toBeTypeOf("function");
        const res = await refuse!(new Request(`${ORIGIN}${route}`, { method }), { params: Promise.resolve({}) });
        expect(res.status, `${method} ${route}`).toBe(405);
        const allow = res.headers.get("allow")?.split(", ") ?? [];
        expect(allow, `${method} ${route}`).toEqual(expect.arrayContaining([...served, "OPTIONS"]));
        expect(allow, `${method} ${route}`).not.toContain(method);
      }
    }
  });

  it("under /api/v1 are bearer-token routes, or public by name", () => {
    const v1 = handlers.filter((h) => h.key.split(" ")[1]!.startsWith("/api/v1/"));
    expect(v1.length).toBeGreaterThan(0);
    for (const h of v1) expect(ROUTES[h.key]?.access, h.key).toMatch(/^(bearer|public|agent)$/);
  });

  it("under /api/v1/agent are agent routes, and agent routes live there only", () => {
    for (const h of handlers) {
      expect(ROUTES[h.key]?.access === "agent", h.key).toBe(h.key.split(" ")[1]!.startsWith("/api/v1/agent/"));
    }
  });
});

const keysOf = (access: RouteSpec["access"]) =>
  Object.entries(ROUTES)
    .filter(([, spec]) => spec.access === access)
    .map(([key]) => key);

describe("REST /api/v1 matrix: route × no token, revoked, expired, lacking the scope, another organization's, another project's, valid", () => {
  it.each(keysOf("bearer"))("%s", async (key) => {
    const spec = ROUTES[key] as Extract<RouteSpec, { access: "bearer" }>;
    const f = await createOrgFixture(getDb(t.url));
    const call = await spec.call(f);
    const revoked = await token(f, [...API_TOKEN_SCOPES]);
    await revokeApiToken(getDb(t.url), f.org.id, tokenIds.at(-1)!);
    const callers: [string, string | null, number[]][] = [
      ["no token", null, [401]],
      ["revoked token", revoked, [401]],
      ["expired token", await token(f, [...API_TOKEN_SCOPES], { expiresAt: new Date(Date.now() - 1000) }), [401]],
      [
        `token without ${spec.scope}`,
        await token(
          f,
          API_TOKEN_SCOPES.filter((s) => s !== spec.scope),
        ),
        [403],
      ],
      ["another organization's token", otherOrgToken, [spec.otherOrg?.status ?? 404]],
      [
        "token limited to another project",
        await token(f, [...API_TOKEN_SCOPES], { projectId: f.otherProject.id }),
        [403, 404],
      ],
    ];
    const db = getDb(t.url);
    const before = await snapshotOrg(db, f.org.id);
    const failures: string[] = [];
    for (const [caller, bearer, expected] of callers) {
      const res = await invoke(key, call, bearer ? { authorization: `Bearer ${bearer}` } : {});
      const body = await res.text();
      if (!expected.includes(res.status)) failures.push(`${caller}: expected ${expected}, got ${res.status} ${body}`);
      if (res.status === 401 && !/^Bearer /.test(res.headers.get("www-authenticate") ?? "")) {
        failures.push(`${caller}: 401 without WWW-Authenticate`);
      }
      if (caller.startsWith("token without") && !body.includes(`lacks the ${spec.scope} scope`)) {
        failures.push(`${caller}: the refusal does not name the scope: ${body}`);
      }
      const leaked = leaks(f, before, call, body);
      if (leaked.length) failures.push(`${caller}: the response holds this organization's ${leaked}`);
    }
    const afterRefusals = changed(before, await snapshotOrg(db, f.org.id));
    if (afterRefusals.length) failures.push(`refused requests changed the organization's ${afterRefusals}`);

    const valid = await invoke(key, call, { authorization: `Bearer ${await token(f, [spec.scope])}` });
    if (valid.status !== spec.success) {
      failures.push(`valid token: expected ${spec.success}, got ${valid.status} ${await valid.text()}`);
    }
    expect(failures).toEqual([]);
  });

  it.each(keysOf("bearer"))("%s is described in the OpenAPI document with its scope", async (key) => {
    const spec = ROUTES[key] as Extract<RouteSpec, { access: "bearer" }>;
    const res = await invoke("GET /api/v1/openapi.json", { url: "/api/v1/openapi.json" }, {});
    const doc = (await res.json()) as { paths: Record<string, Record<string, { description?: string }>> };
    const [method, pattern] = key.split(" ") as [string, string];
    const path = pattern.replace(/^\/api\/v1/, "").replace(/\[(\w+)\]/g, "{$1}");
    // A route whose segment is a kind (`[kind]`) may be documented once per kind, so that each
    // kind's body has its own schema: every such path counts, and there must be one.
    const kindAt = new RegExp(`^${path.replace(/[.*+?^$()|\\]/g, "\\$&").replace("{kind}", "[a-z-]+")}$`);
    const paths = doc.paths[path]
      ? [path]
      : Object.keys(doc.paths).filter((p) => path.includes("{kind}") && kindAt.test(p));
    expect(paths.length).toBeGreaterThan(0);
    for (const documented of paths) {
      expect(doc.paths[documented]?.[method.toLowerCase()]?.description ?? "", documented).toContain(
        `Needs scope \`${spec.scope}\``,
      );
    }
  });

  it.each(keysOf("public"))("%s answers anyone, with or without a token", async (key) => {
    const spec = ROUTES[key] as Extract<RouteSpec, { access: "public" }>;
    const revoked = await token(otherOrg, ["runs:read"]);
    await revokeApiToken(getDb(t.url), otherOrg.org.id, tokenIds.at(-1)!);
    const withTokens: Record<string, string>[] = [
      {},
      { authorization: `Bearer ${revoked}` },
      { authorization: "Bearer nonsense" },
    ];
    for (const headers of withTokens) {
      expect((await invoke(key, spec.call(otherOrg), headers)).status).toBe(200);
    }
  });
});

describe("agent routes matrix: route × no token, API token with every scope, revoked agent token, another organization's agent token, valid", () => {
  it.each(keysOf("agent"))("%s", async (key) => {
    const spec = ROUTES[key] as Extract<RouteSpec, { access: "agent" }>;
    const db = getDb(t.url);
    const f = await createOrgFixture(db);
    const mine = await agentSetup(f);
    const call = spec.call(mine);
    const revoked = await agentSetup(f);
    await revokeApiToken(db, f.org.id, (await db.agent.findUniqueOrThrow({ where: { id: revoked.agentId } })).tokenId);
    const other = await agentSetup(otherOrg);
    const callers: [string, string | null, number[]][] = [
      ["no token", null, [401]],
      ["API token with every scope", await token(f, [...API_TOKEN_SCOPES]), [401]],
      ["revoked agent token", revoked.token, [401]],
      // Announcing makes the caller's own agent, and the queue counts the caller's own
      // organization's work; everything else names an agent or run of `f`.
      ["another organization's agent token", other.token, /\/(announce|queue)$/.test(key) ? [200] : [404]],
    ];
    const before = await snapshotOrg(db, f.org.id);
    const failures: string[] = [];
    for (const [caller, bearer, expected] of callers) {
      const res = await invoke(key, call, bearer ? { authorization: `Bearer ${bearer}` } : {});
      const body = await res.text();
      if (!expected.includes(res.status)) failures.push(`${caller}: expected ${expected}, got ${res.status} ${body}`);
      const leaked = leaks(f, before, call, body);
      if (leaked.length) failures.push(`${caller}: the response holds this organization's ${leaked}`);
    }
    const afterRefusals = changed(before, await snapshotOrg(db, f.org.id));
    if (afterRefusals.length) failures.push(`refused requests changed the organization's ${afterRefusals}`);
    const valid = await invoke(key, call, { authorization: `Bearer ${mine.token}` });
    if (valid.status !== spec.success)
      failures.push(`valid: expected ${spec.success}, got ${valid.status} ${await valid.text()}`);
    expect(failures).toEqual([]);
  });

  it.each(keysOf("bearer"))("%s refuses an agent token (401)", async (key) => {
    const spec = ROUTES[key] as Extract<RouteSpec, { access: "bearer" }>;
    const f = await createOrgFixture(getDb(t.url));
    const { token: agentToken } = await agentSetup(f);
    const res = await invoke(key, await spec.call(f), { authorization: `Bearer ${agentToken}` });
    expect(res.status, await res.text()).toBe(401);
  });
});

type SessionCaller = "anonymous" | "expired session" | "signed-out session" | Role | "other organization";
const SESSION_CALLERS: readonly SessionCaller[] = [
  "anonymous",
  "expired session",
  "signed-out session",
  "viewer",
  "member",
  "owner",
  "other organization",
];
const RANK: Record<Role, number> = { viewer: 0, member: 1, owner: 2 };

/** The cookies a browser of this kind of caller sends. */
async function cookiesOf(f: OrgFixture, caller: SessionCaller): Promise<Record<string, string>> {
  const db = getDb(t.url);
  let session: string | null = null;
  let org = f.org.slug;
  if (caller === "expired session" || caller === "signed-out session") {
    session = (await createSession(db, f.users.member.id)).token;
    if (caller === "expired session") {
      await db.session.update({
        where: { tokenHash: hashToken(session) },
        data: { expiresAt: new Date(Date.now() - 1) },
      });
    } else {
      await deleteSession(db, session);
    }
  } else if (caller === "other organization") {
    session = otherOrg.users.owner.sessionToken;
    org = otherOrg.org.slug;
  } else if (caller !== "anonymous") {
    session = f.users[caller].sessionToken;
  }
  return { cookie: `bb_org=${org}${session ? `; bb_session=${session}` : ""}` };
}

describe("session-cookie routes matrix: route × anonymous, expired and signed-out sessions, viewer, member, owner, another organization", () => {
  it.each(keysOf("session"))("%s", async (key) => {
    const spec = ROUTES[key] as Extract<RouteSpec, { access: "session" }>;
    const db = getDb(t.url);
    const f = await createOrgFixture(db);
    const call = spec.call(f);
    const cookies = await Promise.all(SESSION_CALLERS.map((caller) => cookiesOf(f, caller)));
    let before = await snapshotOrg(db, f.org.id);
    const failures: string[] = [];
    for (const [i, caller] of SESSION_CALLERS.entries()) {
      const expected =
        caller === "anonymous" || caller === "expired session" || caller === "signed-out session"
          ? 401
          : caller === "other organization"
            ? (spec.otherOrg?.status ?? 404)
            : RANK[caller] < RANK[spec.minRole]
              ? 403
              : 200;
      const res = await invoke(key, call, cookies[i]!);
      if (res.status !== expected) {
        failures.push(`${caller}: expected ${expected}, got ${res.status} ${await res.text()}`);
        continue;
      }
      if (expected === 200 && caller !== "other organization") {
        await spec.check?.(res);
        // An allowed write may change rows; later refusals are judged against the new state.
        before = await snapshotOrg(db, f.org.id);
        continue;
      }
      const leaked = leaks(f, before, call, await res.text());
      if (leaked.length) failures.push(`${caller}: the response holds this organization's ${leaked}`);
      const after = changed(before, await snapshotOrg(db, f.org.id));
      if (after.length) failures.push(`${caller}: a refused request changed the organization's ${after}`);
    }
    expect(failures).toEqual([]);
  });
});
