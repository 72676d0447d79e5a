import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ZScenarioSpec } from "@benchboard/core";
import { type ApiTokenScope, createApiToken, createProject, createScenario } from "@benchboard/db";
import { createTestDatabase, type TestDatabase } from "@benchboard/db/testing";
import { createRunsQueue, DEFAULT_REDIS_URL } from "@benchboard/jobs";
import type { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedisRateLimiter } from "../rate-limit";
import type { RestDeps } from "./auth";
import { getConfigHandler, putConfigHandler } from "./config";
import type { RestResponse } from "./http";
import {
  createNotificationEndpointHandler,
  createNotificationRuleHandler,
  deleteNotificationEndpointHandler,
  deleteNotificationRuleHandler,
  listNotificationEndpointsHandler,
  listNotificationRulesHandler,
  updateNotificationEndpointHandler,
  updateNotificationRuleHandler,
} from "./notifications";
import { openApiDocument } from "./openapi";

// Notifications over REST and in benchboard.yml, on real PostgreSQL and Redis: the routes, the
// apply/export of a `notifications:` section, and `benchboard apply`/`export` against a real
// HTTP server on 127.0.0.1.
const BIN = fileURLToPath(new URL("../../../../apps/cli/bin/benchboard.js", import.meta.url));
// Public addresses: saving them needs no name lookup and no allow-list entry.
const SLACK_URL = "https://93.184.215.14/services/T0/B0/very-secret-path";
const HOOK_URL = "https://93.184.215.15/hooks/benchboard?key=hook-credential";

let t: TestDatabase;
let queue: Queue;
let redis: Redis;
let deps: RestDeps;
let orgId = "";
let projectId = "";
let apiUrl = "";
let server: http.Server;
const prefix = `bbntf-${randomBytes(4).toString("hex")}`;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  t = await createTestDatabase();
  queue = createRunsQueue(process.env.REDIS_URL ?? DEFAULT_REDIS_URL, prefix);
  redis = new Redis(process.env.REDIS_URL ?? DEFAULT_REDIS_URL);
  deps = { db: t.db, queue, rateLimit: createRedisRateLimiter(redis, `${prefix}:`), secretKey: randomBytes(32) };
  const org = await t.db.organization.create({ data: { name: "Acme", slug: "acme" } });
  orgId = org.id;
  const project = await createProject(t.db, org.id, { name: "Checkout API" });
  projectId = project.id;
  await createScenario(t.db, org.id, {
    projectId,
    name: "checkout",
    spec: ZScenarioSpec.parse({ engine: "http-open", rate: 10, durationS: 1 }),
  });
  const viewer = await t.db.user.create({ data: { email: "viewer@example.test", name: "Viewer" } });
  await t.db.membership.create({ data: { orgId, userId: viewer.id, role: "viewer" } });
  const token = async (name: string, scopes: ApiTokenScope[], options: { projectId?: string; by?: string } = {}) => {
    tokens[name] = (
      await createApiToken(t.db, org.id, {
        name,
        scopes,
        projectId: options.projectId ?? null,
        createdById: options.by ?? null,
      })
    ).token;
  };
  await token("config", ["config:read", "config:write"]);
  await token("reader", ["config:read"]);
  await token("viewer", ["config:read", "config:write"], { by: viewer.id });
  await token("oneProject", ["config:read", "config:write"], { projectId });

  // The configuration routes `benchboard apply` and `export` call, on a real server.
  server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
    const body = chunks.length ? Buffer.concat(chunks) : null;
    const rest = new Request(`${apiUrl}${req.url}`, { method: req.method, headers, body });
    const match = /^\/api\/v1\/projects\/([^/]+)\/config$/.exec(new URL(rest.url).pathname);
    let out: RestResponse = { status: 404, body: { error: { message: "not found" } } };
    if (match && req.method === "GET") out = await getConfigHandler(rest, deps, decodeURIComponent(match[1]!));
    if (match && req.method === "PUT") out = await putConfigHandler(rest, deps, decodeURIComponent(match[1]!));
    res.writeHead(out.status, { "content-type": "application/json" }).end(JSON.stringify(out.body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server?.closeAllConnections();
  server?.close();
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
  await queue.close();
  await t.drop();
});

function request(method: string, route: string, token: string | null, body?: unknown): Request {
  return new Request(`http://bench.test/api/v1${route}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

type Body = Record<string, unknown> & { error?: { message: string; field?: string } };
const bodyOf = (res: RestResponse) => res.body as Body;

describe("notification endpoints over REST", () => {
  it("create, list, update and delete, never answering a receiver's URL past its origin", async () => {
    const created = await createNotificationEndpointHandler(
      request("POST", "/notifications/endpoints", tokens.config!, {
        name: "ci hook",
        channel: "webhook",
        url: HOOK_URL,
      }),
      deps,
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { endpoint, secret } = bodyOf(created) as { endpoint: { id: string; urlOrigin: string }; secret: string };
    expect(secret).toMatch(/^whsec_/);
    expect(endpoint.urlOrigin).toBe("https://93.184.215.15:443");

    const list = await listNotificationEndpointsHandler(
      request("GET", "/notifications/endpoints", tokens.reader!),
      deps,
    );
    expect(list.status).toBe(200);
    const items = (bodyOf(list).items as { id: string; name: string; signed: boolean }[]).filter(
      (e) => e.id === endpoint.id,
    );
    expect(items).toEqual([expect.objectContaining({ name: "ci hook", signed: true, enabled: true })]);
    const text = JSON.stringify(list.body);
    expect(text).not.toContain("hook-credential");
    expect(text).not.toContain(secret);

    const renamed = await updateNotificationEndpointHandler(
      request("PATCH", `/notifications/endpoints/${endpoint.id}`, tokens.config!, {
        name: "deploy hook",
        url: "https://93.184.215.16/other",
        enabled: false,
      }),
      deps,
      endpoint.id,
    );
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(bodyOf(renamed).endpoint).toMatchObject({
      name: "deploy hook",
      urlOrigin: "https://93.184.215.16:443",
      enabled: false,
    });

    // A private receiver is refused by the organization's address rule, naming `url`; nothing changes.
    const refused = await updateNotificationEndpointHandler(
      request("PATCH", `/notifications/endpoints/${endpoint.id}`, tokens.config!, {
        name: "sneaky",
        url: "http://10.0.0.7/hook",
      }),
      deps,
      endpoint.id,
    );
    expect(refused.status).toBe(409);
    expect(bodyOf(refused).error?.field).toBe("url");
    const stored = await t.db.notificationEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
    expect(stored).toMatchObject({ name: "deploy hook", urlOrigin: "https://93.184.215.16:443" });

    const gone = await deleteNotificationEndpointHandler(
      request("DELETE", `/notifications/endpoints/${endpoint.id}`, tokens.config!),
      deps,
      endpoint.id,
    );
    expect(gone.status).toBe(200);
    const again = await deleteNotificationEndpointHandler(
      request("DELETE", `/notifications/endpoints/${endpoint.id}`, tokens.config!),
      deps,
      endpoint.id,
    );
    expect(again.status).toBe(404);
  });

  it("an email endpoint takes members' addresses: recipients, not a URL; strangers refused naming the field", async () => {
    const post = (body: unknown) =>
      createNotificationEndpointHandler(request("POST", "/notifications/endpoints", tokens.config!, body), deps);
    const created = await post({
      name: "perf mail",
      channel: "email",
      recipients: ["Viewer@example.test", "viewer@example.test"],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(bodyOf(created)).toMatchObject({
      endpoint: { channel: "email", recipients: ["viewer@example.test"], urlOrigin: "mailto:", signed: false },
      secret: null,
    });
    const stranger = await post({ name: "x", channel: "email", recipients: ["someone@elsewhere.example"] });
    expect([stranger.status, bodyOf(stranger).error?.field]).toEqual([409, "recipients"]);
    // An address at the length limits (252 characters, labels of 63) is judged like any other.
    const longest = `0@${"0".repeat(63)}.${"a".repeat(63)}.${"a".repeat(63)}.${"a".repeat(59)}`;
    const long = await post({ name: "0", channel: "email", recipients: [longest] });
    expect([long.status, bodyOf(long).error?.field], JSON.stringify(long.body)).toEqual([409, "recipients"]);
    // Recipients are stored encrypted: an install without its secret key says which setting is missing.
    const noKey = await createNotificationEndpointHandler(
      request("POST", "/notifications/endpoints", tokens.config!, {
        name: "y",
        channel: "email",
        recipients: ["viewer@example.test"],
      }),
      { ...deps, secretKey: null },
    );
    expect(noKey.status).toBe(503);
    expect(bodyOf(noKey).error?.message).toMatch(/BENCHBOARD_SECRET_KEY/);
    const withUrl = await post({ name: "x", channel: "email", recipients: ["viewer@example.test"], url: SLACK_URL });
    expect(withUrl.status).toBe(400);
    const tooMany = await post({
      name: "x",
      channel: "email",
      recipients: Array.from({ length: 11 }, (_, i) => `p${i}@example.test`),
    });
    expect([tooMany.status, bodyOf(tooMany).error?.field]).toEqual([400, "recipients"]);
    const doc = openApiDocument() as { components: { schemas: Record<string, { oneOf?: unknown[] }> } };
    expect(doc.components.schemas.NotificationEndpointInput?.oneOf).toHaveLength(3);
  });

  it("refuse bad input naming the field, a viewer's token, a project's token and a token without the scope", async () => {
    const post = (token: string, body: unknown) =>
      createNotificationEndpointHandler(request("POST", "/notifications/endpoints", token, body), deps);
    const channel = await post(tokens.config!, { name: "x", channel: "pager", url: SLACK_URL });
    expect([channel.status, bodyOf(channel).error?.field]).toEqual([400, "channel"]);
    const extra = await post(tokens.config!, { name: "x", channel: "slack", url: SLACK_URL, colour: "red" });
    expect(extra.status).toBe(400);
    expect(bodyOf(extra).error?.message).toContain("colour");
    const scheme = await post(tokens.config!, { name: "x", channel: "slack", url: "ftp://93.184.215.14/" });
    expect([scheme.status, bodyOf(scheme).error?.field]).toEqual([400, "url"]);
    const slackSecret = await post(tokens.config!, {
      name: "x",
      channel: "slack",
      url: SLACK_URL,
      secret: `whsec_${randomBytes(32).toString("base64")}`,
    });
    expect([slackSecret.status, bodyOf(slackSecret).error?.field]).toEqual([400, "secret"]);

    const viewer = await post(tokens.viewer!, { name: "x", channel: "slack", url: SLACK_URL });
    expect(viewer.status).toBe(403);
    const project = await post(tokens.oneProject!, { name: "x", channel: "slack", url: SLACK_URL });
    expect(project.status).toBe(403);
    expect(bodyOf(project).error?.message).toContain("limited to one project");
    const reader = await post(tokens.reader!, { name: "x", channel: "slack", url: SLACK_URL });
    expect(reader.status).toBe(403);
    expect(bodyOf(reader).error?.message).toContain("lacks the config:write scope");
    const anonymous = await post(null as unknown as string, { name: "x", channel: "slack", url: SLACK_URL });
    expect(anonymous.status).toBe(401);
    expect(await t.db.notificationEndpoint.count({ where: { orgId, name: "x" } })).toBe(0);
  });
});

describe("notification rules over REST", () => {
  it("create (repeats counted once), update, list and delete; unknown references are 404 naming the field", async () => {
    const slack = bodyOf(
      await createNotificationEndpointHandler(
        request("POST", "/notifications/endpoints", tokens.config!, {
          name: "alerts",
          channel: "slack",
          url: SLACK_URL,
        }),
        deps,
      ),
    ) as { endpoint: { id: string }; secret: string | null };
    expect(slack.secret).toBeNull();
    const created = await createNotificationRuleHandler(
      request("POST", "/notifications/rules", tokens.config!, {
        name: "checkout failures",
        events: ["run.failed", "run.failed", "thresholds.failed"],
        projectId,
        endpointIds: [slack.endpoint.id],
      }),
      deps,
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const rule = bodyOf(created).rule as { id: string; events: string[]; endpointIds: string[] };
    expect(rule.events).toEqual(["run.failed", "thresholds.failed"]);
    expect(rule.endpointIds).toEqual([slack.endpoint.id]);

    const updated = await updateNotificationRuleHandler(
      request("PATCH", `/notifications/rules/${rule.id}`, tokens.config!, {
        events: ["run.finished"],
        tolerancePct: 8,
        enabled: false,
      }),
      deps,
      rule.id,
    );
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(bodyOf(updated).rule).toMatchObject({
      events: ["run.finished"],
      tolerancePct: 8,
      enabled: false,
      projectId,
      endpointIds: [slack.endpoint.id],
    });

    const unknown = await createNotificationRuleHandler(
      request("POST", "/notifications/rules", tokens.config!, {
        name: "nowhere",
        events: ["run.failed"],
        endpointIds: ["cnotanendpointatall000000"],
      }),
      deps,
    );
    expect([unknown.status, bodyOf(unknown).error?.field]).toEqual([404, "endpointIds"]);
    const badEvent = await createNotificationRuleHandler(
      request("POST", "/notifications/rules", tokens.config!, {
        name: "typo",
        events: ["run.exploded"],
        endpointIds: [slack.endpoint.id],
      }),
      deps,
    );
    expect([badEvent.status, bodyOf(badEvent).error?.field]).toEqual([400, "events.0"]);

    const list = bodyOf(
      await listNotificationRulesHandler(request("GET", "/notifications/rules", tokens.reader!), deps),
    ).items as { id: string }[];
    expect(list.map((r) => r.id)).toContain(rule.id);
    expect(
      (
        await deleteNotificationRuleHandler(
          request("DELETE", `/notifications/rules/${rule.id}`, tokens.config!),
          deps,
          rule.id,
        )
      ).status,
    ).toBe(200);
    expect(await t.db.notificationRule.count({ where: { id: rule.id } })).toBe(0);
  });

  it("are described in the OpenAPI document", () => {
    const doc = openApiDocument() as { paths: Record<string, Record<string, { description: string }>> };
    expect(Object.keys(doc.paths["/notifications/endpoints"]!).sort()).toEqual(["get", "post"]);
    expect(Object.keys(doc.paths["/notifications/rules/{id}"]!).sort()).toEqual(["delete", "patch"]);
    expect(doc.paths["/notifications/endpoints"]!.post!.description).toContain("Needs scope `config:write`");
  });
});

function benchboard(args: string[], env: Record<string, string>, cwd: string) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve, reject) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      {
        cwd,
        env: {
          PATH: process.env.PATH ?? "",
          HOME: cwd,
          BENCHBOARD_URL: apiUrl,
          BENCHBOARD_TOKEN: tokens.config!,
          ...env,
        },
        timeout: 60_000,
      },
      (err, stdout, stderr) => {
        if (err && typeof err.code !== "number") return reject(err);
        resolve({ code: typeof err?.code === "number" ? err.code : 0, stdout, stderr });
      },
    );
  });
}

describe("the documentation's benchboard.yml", () => {
  it("applies as written with the variables its workflow step sets, and names one left unset", async () => {
    const doc = readFileSync(fileURLToPath(new URL("../../../../docs/ci/github-actions.md", import.meta.url)), "utf8");
    const example = /```yaml\n(# benchboard\.yml\n[\s\S]*?)```/.exec(doc)?.[1];
    expect(example).toContain("${STAGING_TOKEN}");
    // The workflow sets each variable the file names on its apply step.
    const workflow = readFileSync(
      fileURLToPath(new URL("../../../../docs/ci/benchboard.yml", import.meta.url)),
      "utf8",
    );
    expect(workflow).toMatch(/benchboard apply -f benchboard\.yml\n\s+env:\n\s+STAGING_TOKEN: /);
    const dir = mkdtempSync(path.join(tmpdir(), "bb-doc-"));
    const file = path.join(dir, "benchboard.yml");
    // As written, but for the staging host: this machine resolves no public name, so it is an
    // address (public, like the name's) that needs no lookup, outside the ranges the other tests keep out of exports.
    expect(example).toContain("baseUrl: https://staging.example.com");
    writeFileSync(file, example!.replace("https://staging.example.com", "https://9.9.9.9"));
    const unset = await benchboard(["apply", "-f", file, "--dry-run"], {}, dir);
    expect(unset.code).toBe(2);
    expect(unset.stderr).toContain("STAGING_TOKEN");
    const applied = await benchboard(["apply", "-f", file], { STAGING_TOKEN: "staging-credential" }, dir);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout + applied.stderr).not.toContain("staging-credential");
    const scenario = await t.db.scenario.findFirstOrThrow({ where: { projectId, name: "checkout 500 rps" } });
    expect(scenario.spec).toMatchObject({ engine: "http-open", rate: 500, durationS: 60 });
    expect(await t.db.target.count({ where: { projectId, name: "staging" } })).toBe(1);
  });
});

describe("notifications in benchboard.yml", () => {
  it("apply creates endpoints (URLs from the environment) and the project's rules; export leaves every URL and secret out", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "bb-notify-"));
    const file = path.join(dir, "benchboard.yml");
    const secret = `whsec_${randomBytes(32).toString("base64")}`;
    writeFileSync(
      file,
      [
        "version: 1",
        "notifications:",
        "  endpoints:",
        "    - name: team slack",
        "      channel: slack",
        `      url: \${TEAM_SLACK_URL}`,
        "    - name: deploy hook",
        "      channel: webhook",
        `      url: \${DEPLOY_HOOK_URL}`,
        `      secret: \${DEPLOY_HOOK_SECRET}`,
        "    - name: perf digest",
        "      channel: email",
        "      recipients: [viewer@example.test]",
        "  rules:",
        "    - name: checkout regressions",
        "      events: [regression.detected, thresholds.failed]",
        "      scenario: checkout",
        "      endpoints: [team slack, deploy hook, perf digest]",
        "      tolerancePct: 7",
        "",
      ].join("\n"),
    );
    const env = { TEAM_SLACK_URL: SLACK_URL, DEPLOY_HOOK_URL: HOOK_URL, DEPLOY_HOOK_SECRET: secret };
    const applied = await benchboard(["apply", "-f", file, "--project", "checkout-api"], env, dir);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain("+ create notification endpoint team slack");
    expect(applied.stdout).toContain("+ create notification endpoint deploy hook");
    expect(applied.stdout).toContain("+ create notification endpoint perf digest");
    expect(applied.stdout).toContain("+ create notification rule checkout regressions");
    expect(applied.stdout + applied.stderr).not.toContain(secret);

    const rule = await t.db.notificationRule.findFirstOrThrow({
      where: { orgId, name: "checkout regressions" },
      include: { endpoints: { include: { endpoint: { select: { name: true } } } } },
    });
    const scenario = await t.db.scenario.findFirstOrThrow({ where: { projectId, name: "checkout" } });
    expect(rule).toMatchObject({ projectId, scenarioId: scenario.id, tolerancePct: 7, baselineBranch: "main" });
    expect(rule.endpoints.map((e) => e.endpoint.name).sort()).toEqual(["deploy hook", "perf digest", "team slack"]);

    // The same file again: the URLs and the secret are written again (never compared), the rule is unchanged.
    const again = await benchboard(["apply", "-f", file, "--project", "checkout-api", "--dry-run"], env, dir);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain("= unchanged notification rule checkout regressions");
    expect(again.stdout).toContain("~ update notification endpoint deploy hook (url, secret)");

    const exported = await benchboard(["export", "--project", "checkout-api"], {}, dir);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toContain("name: team slack");
    // Recipients are members' addresses, not secrets: exported.
    expect(exported.stdout).toMatch(/name: perf digest\n\s+channel: email\n\s+recipients:\n\s+- viewer@example.test/);
    expect(exported.stdout).toContain("name: checkout regressions");
    expect(exported.stdout).toContain("scenario: checkout");
    for (const credential of ["very-secret-path", "hook-credential", secret, "93.184.215"]) {
      expect(exported.stdout).not.toContain(credential);
    }

    // The export applies as it is: every endpoint exists, so leaving out its URL keeps the stored one.
    const exportFile = path.join(dir, "exported.yml");
    writeFileSync(exportFile, exported.stdout);
    const reapplied = await benchboard(["apply", "-f", exportFile, "--project", "checkout-api"], {}, dir);
    expect(reapplied.code, reapplied.stderr).toBe(0);
    expect(reapplied.stdout).toContain("Applied to checkout-api: 0 to create, 0 to update");
  });

  it("a new endpoint without a URL, an unknown endpoint or scenario: refused naming the field, nothing stored", async () => {
    const put = (doc: unknown) =>
      putConfigHandler(request("PUT", "/projects/checkout-api/config", tokens.config!, doc), deps, "checkout-api");
    const before = await t.db.notificationEndpoint.count({ where: { orgId } });
    const noUrl = await put({ version: 1, notifications: { endpoints: [{ name: "pager", channel: "webhook" }] } });
    expect([noUrl.status, bodyOf(noUrl).error?.field]).toEqual([409, "notifications.endpoints.0.url"]);
    const unknownEndpoint = await put({
      version: 1,
      notifications: { rules: [{ name: "r", events: ["run.failed"], endpoints: ["nobody"] }] },
    });
    expect([unknownEndpoint.status, bodyOf(unknownEndpoint).error?.field]).toEqual([
      409,
      "notifications.rules.0.endpoints.0",
    ]);
    const unknownScenario = await put({
      version: 1,
      notifications: {
        endpoints: [{ name: "pager", channel: "slack", url: SLACK_URL }],
        rules: [{ name: "r", events: ["run.failed"], scenario: "nightly", endpoints: ["pager"] }],
      },
    });
    expect(unknownScenario.status).toBe(409);
    expect(bodyOf(unknownScenario).error?.message).toContain('no scenario "nightly"');
    // The endpoint planned before the refusal was taken back with it.
    expect(await t.db.notificationEndpoint.count({ where: { orgId } })).toBe(before);
    const badEvent = await put({
      version: 1,
      notifications: { rules: [{ name: "r", events: ["run.exploded"], endpoints: ["team slack"] }] },
    });
    expect([badEvent.status, bodyOf(badEvent).error?.field]).toEqual([400, "notifications.rules.0.events.0"]);

    // A token limited to the project keeps the project's rules, naming endpoints that exist, but
    // creates or changes no endpoint: every project's rules may send to it.
    const limited = (doc: unknown) =>
      putConfigHandler(request("PUT", "/projects/checkout-api/config", tokens.oneProject!, doc), deps, "checkout-api");
    const create = await limited({
      version: 1,
      notifications: { endpoints: [{ name: "mine", channel: "slack", url: SLACK_URL }] },
    });
    expect([create.status, bodyOf(create).error?.field]).toEqual([409, "notifications.endpoints.0.name"]);
    const repoint = await limited({
      version: 1,
      notifications: { endpoints: [{ name: "team slack", channel: "slack", url: "https://93.184.215.99/x" }] },
    });
    expect([repoint.status, bodyOf(repoint).error?.field]).toEqual([409, "notifications.endpoints.0.url"]);
    const rule = await limited({
      version: 1,
      notifications: {
        endpoints: [{ name: "team slack", channel: "slack" }],
        rules: [{ name: "project failures", events: ["run.failed"], endpoints: ["team slack"] }],
      },
    });
    expect(rule.status, JSON.stringify(rule.body)).toBe(200);
    expect(await t.db.notificationRule.count({ where: { orgId, projectId, name: "project failures" } })).toBe(1);
    expect(await t.db.notificationEndpoint.count({ where: { orgId } })).toBe(before);
  });
});
