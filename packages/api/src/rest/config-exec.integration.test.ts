import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseVegetaResultLine, RequestAggregator } from "@benchboard/core/importers";
import { type ApiTokenScope, createApiToken, createProject } from "@benchboard/db";
import { allowLoopbackTargets, type TestDatabase } from "@benchboard/db/testing";
import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedisRateLimiter } from "../rate-limit";
import { startTestServices, type TestServices } from "../testing/services";
import type { RestDeps } from "./auth";
import { getConfigHandler, listConfigHandler, putConfigHandler, putConfigItemHandler } from "./config";
import { execProgressHandler, finishExecRunHandler, startExecRunHandler } from "./exec-runs";
import type { RestResponse } from "./http";
import { openApiDocument } from "./openapi";

// Configuration as code and client-driven runs over REST, on real PostgreSQL and Redis.
const FIXTURES = fileURLToPath(new URL("../../../core/src/importers/fixtures/", import.meta.url));

let t: TestDatabase;
let queue: Queue;
let redis: Redis;
let services: TestServices;
let deps: RestDeps;
const prefix = `bbcfg-${randomBytes(4).toString("hex")}`;
const tokens: Record<string, string> = {};
const projects: Record<string, { id: string; slug: string }> = {};

beforeAll(async () => {
  services = await startTestServices(prefix);
  ({ t, queue, redis } = services);
  // Targets here are on 127.0.0.1, which this install's operator allows.
  await allowLoopbackTargets(t.db);
  deps = { db: t.db, queue, rateLimit: createRedisRateLimiter(redis, `${prefix}:`), secretKey: randomBytes(32) };
  const org = await t.db.organization.create({ data: { name: "Acme", slug: "acme" } });
  for (const name of ["Checkout API", "Empty", "Other"]) {
    projects[name] = await createProject(t.db, org.id, { name });
  }
  const token = async (name: string, scopes: ApiTokenScope[], projectId: string | null = null) => {
    tokens[name] = (await createApiToken(t.db, org.id, { name, scopes, projectId, createdById: null })).token;
  };
  await token("config", ["config:read", "config:write"]);
  await token("runsOnly", ["runs:read", "runs:write", "runs:launch"]);
  await token("otherProject", ["config:read", "config:write", "runs:read", "runs:write"], projects.Other!.id);
  await token("reader", ["runs:read"]);
});

afterAll(async () => {
  await services?.close();
});

function request(method: string, path: string, token: string, body?: unknown): Request {
  return new Request(`http://bench.test/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

const bodyOf = (res: RestResponse) =>
  res.body as Record<string, unknown> & { error?: { message: string; field?: string } };

const DOC = {
  version: 1,
  thresholds: [{ metric: "latency_p99", op: "<", value: 250 }],
  targets: [
    {
      name: "api",
      kind: "http",
      baseUrl: "http://127.0.0.1:8080",
      headers: [
        { name: "x-env", value: "ci" },
        { name: "authorization", secret: true, value: "Bearer s3cret-value" },
      ],
      overheadStages: ["auth", "routing"],
    },
  ],
  instanceConfigs: [{ name: "small", instanceType: "t3.small", vcpu: 2, memoryMb: 2048, knobs: { workers: 4 } }],
  scenarios: [
    {
      name: "steady",
      description: "50 req/s for 10 s",
      spec: { engine: "http-open", rate: 50, durationS: 10 },
      thresholds: [{ metric: "success_rate", op: ">=", value: 99 }],
    },
  ],
};

describe("configuration as code", () => {
  const put = (project: string, doc: unknown, token = tokens.config!, dryRun = false) =>
    putConfigHandler(
      request("PUT", `/projects/${project}/config${dryRun ? "?dryRun=true" : ""}`, token, doc),
      deps,
      project,
    );
  const get = (project: string, token = tokens.config!) =>
    getConfigHandler(request("GET", `/projects/${project}/config`, token), deps, project);

  it("plans without writing, applies, and changes nothing the second time", async () => {
    const slug = projects["Checkout API"]!.slug;
    const plan = await put(slug, DOC, tokens.config, true);
    expect(plan.status).toBe(200);
    expect(bodyOf(plan)).toMatchObject({ dryRun: true, changed: 4 });
    expect(bodyOf(await get(slug)).targets).toEqual([]);

    const first = await put(slug, DOC);
    expect(bodyOf(first).changes).toEqual([
      { kind: "thresholds", name: "project", action: "update" },
      { kind: "target", name: "api", action: "create" },
      { kind: "instanceConfig", name: "small", action: "create" },
      { kind: "scenario", name: "steady", action: "create" },
    ]);
    // A secret value given in the file is always replaced: a dry run never confirms a guess of
    // the stored value. Everything else is unchanged the second time.
    const guess = await put(slug, DOC, tokens.config, true);
    expect(bodyOf(guess).changes).toContainEqual({
      kind: "target",
      name: "api",
      action: "update",
      fields: ["headers"],
    });
    const second = await put(slug, DOC);
    expect(bodyOf(second)).toMatchObject({ changed: 1 });
    expect(
      (bodyOf(second).changes as { kind: string; action: string }[]).filter((c) => c.action !== "unchanged"),
    ).toEqual([{ kind: "target", name: "api", action: "update", fields: ["headers"] }]);

    // A changed secret value is a change; the value never comes back.
    const rotated = structuredClone(DOC);
    rotated.targets[0]!.headers[1]!.value = "Bearer rotated";
    rotated.scenarios[0]!.spec.rate = 60;
    const third = await put(slug, rotated);
    expect(bodyOf(third).changes).toContainEqual({
      kind: "target",
      name: "api",
      action: "update",
      fields: ["headers"],
    });
    expect(bodyOf(third).changes).toContainEqual({
      kind: "scenario",
      name: "steady",
      action: "update",
      fields: ["spec"],
    });
    const exported = await get(slug);
    expect(JSON.stringify(exported.body)).not.toContain("rotated");
    expect(bodyOf(exported).targets).toEqual([
      {
        name: "api",
        kind: "http",
        baseUrl: "http://127.0.0.1:8080",
        headers: [
          { name: "x-env", value: "ci" },
          { name: "authorization", secret: true },
        ],
        overheadStages: ["auth", "routing"],
      },
    ]);

    // Overhead stages are compared and applied like every other field.
    const restaged = structuredClone(rotated);
    restaged.targets[0]!.overheadStages = ["auth"];
    expect(bodyOf(await put(slug, restaged)).changes).toContainEqual({
      kind: "target",
      name: "api",
      action: "update",
      fields: ["overheadStages", "headers"],
    });
    expect((bodyOf(await get(slug)).targets as { overheadStages?: string[] }[])[0]!.overheadStages).toEqual(["auth"]);
    expect(bodyOf(await put(slug, rotated)).changes).toContainEqual({
      kind: "target",
      name: "api",
      action: "update",
      fields: ["overheadStages", "headers"],
    });
  });

  it("recreates a project from its export, once the secret values are given", async () => {
    const source = bodyOf(await get(projects["Checkout API"]!.slug));
    const empty = projects.Empty!.slug;
    // The export names its project: applied to another, the file must say so.
    const misnamed = await put(empty, source);
    expect(bodyOf(misnamed).error).toMatchObject({ field: "project" });
    source.project = empty;
    // Secret values are never exported: a new target needs them, and the error says where.
    const refused = await put(empty, source);
    expect(refused.status).toBe(409);
    expect(bodyOf(refused).error).toEqual({
      message: 'target "api": headers.1.value: enter a value for this secret header',
      field: "headers.1.value",
    });
    const withSecret = structuredClone(source) as typeof DOC;
    withSecret.targets[0]!.headers[1]!.value = "Bearer from-the-environment";
    const applied = await put(empty, withSecret);
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    const copy = bodyOf(await get(empty));
    expect(copy).toEqual(source);
    // Applied again: only the given secret is replaced (a file that carries it always replaces it).
    expect(bodyOf(await put(empty, withSecret))).toMatchObject({ changed: 1 });
    expect(bodyOf(await put(empty, source))).toMatchObject({ changed: 0 });
  });

  it("applies the web app's target rules and names the item and field", async () => {
    const slug = projects["Checkout API"]!.slug;
    const metadata = await put(slug, {
      version: 1,
      targets: [{ name: "meta", kind: "http", baseUrl: "http://169.254.169.254/" }],
    });
    expect(metadata.status).toBe(409);
    expect(bodyOf(metadata).error).toMatchObject({ field: "baseUrl" });
    expect(bodyOf(metadata).error!.message).toMatch(/^target "meta": /);
    const typo = await put(slug, { version: 1, targets: [{ name: "x", kind: "http", baseURL: "http://127.0.0.1/" }] });
    expect(typo.status).toBe(400);
    expect(bodyOf(typo).error!.field).toBe("targets.0.baseUrl");
    const stages = await put(slug, {
      version: 1,
      targets: [{ name: "x", kind: "http", baseUrl: "http://127.0.0.1/", overheadStages: ["ok", "not ok"] }],
    });
    expect(stages.status).toBe(400);
    expect(bodyOf(stages).error!.field).toBe("targets.0.overheadStages.1");
    const twice = await put(slug, { version: 1, scenarios: [DOC.scenarios[0], DOC.scenarios[0]] });
    expect(bodyOf(twice).error).toMatchObject({
      field: "scenarios.1.name",
      message: 'scenarios.1.name: "steady" appears twice',
    });
  });

  it("applies all or nothing: a refused item leaves everything before it unchanged, and a dry run meets the same refusal", async () => {
    const slug = projects["Checkout API"]!.slug;
    const before = bodyOf(await get(slug));
    const doc = {
      version: 1,
      // Would change: thresholds, a scenario update and a new instance config, before…
      thresholds: [{ metric: "latency_p99", op: "<", value: 999 }],
      instanceConfigs: [{ name: "half-applied", vcpu: 1 }],
      scenarios: [{ ...DOC.scenarios[0], spec: { engine: "http-open", rate: 77, durationS: 10 } }],
      // …a target the address rules refuse.
      targets: [{ name: "meta", kind: "http", baseUrl: "http://169.254.169.254/" }],
    };
    const plan = await put(slug, doc, tokens.config, true);
    expect(plan.status).toBe(409);
    expect(bodyOf(plan).error!.message).toMatch(/^target "meta": /);
    const applied = await put(slug, doc);
    expect(applied.status).toBe(409);
    expect(bodyOf(applied).error).toMatchObject({ field: "baseUrl" });
    expect(bodyOf(await get(slug))).toEqual(before);
  });

  it("refuses in a dry run what the organization's caps refuse", async () => {
    const slug = projects["Checkout API"]!.slug;
    const org = await t.db.project.findUniqueOrThrow({ where: { id: projects["Checkout API"]!.id } });
    await t.db.organization.update({ where: { id: org.orgId }, data: { caps: { maxRate: 100 } } });
    try {
      const over = {
        version: 1,
        scenarios: [{ name: "too fast", spec: { engine: "http-open", rate: 5000, durationS: 10 } }],
      };
      const plan = await put(slug, over, tokens.config, true);
      expect(plan.status, JSON.stringify(plan.body)).toBeGreaterThanOrEqual(400);
      expect(bodyOf(plan).error!.message).toMatch(/^scenario "too fast": /);
      expect((bodyOf(await get(slug)).scenarios as { name: string }[]).map((x) => x.name)).not.toContain("too fast");
    } finally {
      await t.db.organization.update({ where: { id: org.orgId }, data: { caps: {} } });
    }
  });

  it("sizes a scenario's unsaid connection pool within the caps, and still refuses a stated one over them", async () => {
    const slug = projects.Empty!.slug;
    const org = await t.db.project.findUniqueOrThrow({ where: { id: projects.Empty!.id } });
    // A self-serve organization's caps: 1,000 req/s, 200 connections, 300 s.
    await t.db.organization.update({
      where: { id: org.orgId },
      data: { caps: { maxRate: 1000, maxConnections: 200, maxDurationS: 300 } },
    });
    try {
      // The documentation's example scenario, as written.
      const example = {
        version: 1,
        scenarios: [{ name: "checkout 500 rps", spec: { engine: "http-open", rate: 500, durationS: 60 } }],
      };
      const applied = await put(slug, example);
      expect(applied.status, JSON.stringify(applied.body)).toBe(200);
      const stored = await t.db.scenario.findFirstOrThrow({
        where: { projectId: projects.Empty!.id, name: "checkout 500 rps" },
      });
      expect(stored.spec).toMatchObject({ rate: 500, maxConnections: 200 });
      expect(bodyOf(await put(slug, example))).toMatchObject({ changed: 0 });
      const stated = await put(slug, {
        version: 1,
        scenarios: [{ name: "wide", spec: { engine: "http-open", rate: 500, durationS: 60, maxConnections: 1000 } }],
      });
      expect(stated.status).toBe(409);
      expect(bodyOf(stated).error!.message).toMatch(/^scenario "wide": /);
    } finally {
      await t.db.organization.update({ where: { id: org.orgId }, data: { caps: {} } });
    }
  });

  it("refuses a document that names another project than the one it is sent to", async () => {
    const slug = projects["Checkout API"]!.slug;
    const before = bodyOf(await get(slug));
    const other = await put(slug, { ...DOC, project: "billing", thresholds: [] });
    expect(other.status).toBe(409);
    expect(bodyOf(other).error).toEqual({
      field: "project",
      message: `project: the document names project "billing" but was sent to project "${slug}"; make them agree`,
    });
    expect(bodyOf(await get(slug)).thresholds).toEqual(before.thresholds);
    // Its own slug, or its id, is no conflict.
    expect((await put(slug, { ...DOC, project: slug }, tokens.config, true)).status).toBe(200);
    expect((await put(projects["Checkout API"]!.id, { ...DOC, project: slug }, tokens.config, true)).status).toBe(200);
  });

  it("creates the project the file names when no project has that slug, once", async () => {
    const doc = { ...DOC, project: "new-service", projectName: "New service" };
    const plan = await put("new-service", doc, tokens.config, true);
    expect(plan.status, JSON.stringify(plan.body)).toBe(200);
    expect((bodyOf(plan).changes as unknown[])[0]).toEqual({ kind: "project", name: "new-service", action: "create" });
    expect(await t.db.project.count({ where: { slug: "new-service" } })).toBe(0);

    const applied = await put("new-service", doc);
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    expect(bodyOf(applied)).toMatchObject({ changed: 5 });
    const made = await t.db.project.findFirstOrThrow({ where: { slug: "new-service" } });
    expect(made.name).toBe("New service");
    // Again: nothing new is made; only the secret header value the file gives is written again
    // (a given secret is replaced, never compared with the stored one).
    const again = bodyOf(await put("new-service", doc));
    expect(again).toMatchObject({ changed: 1 });
    expect(await t.db.project.count({ where: { slug: "new-service" } })).toBe(1);

    // A refused item takes the new project back with it.
    const refused = await put("half-made", {
      version: 1,
      targets: [{ name: "meta", kind: "http", baseUrl: "http://169.254.169.254/" }],
    });
    expect(refused.status).toBe(409);
    expect(await t.db.project.count({ where: { slug: "half-made" } })).toBe(0);
    // A token limited to one project creates none; a name that is no slug is not guessed at.
    expect((await put("another-service", DOC, tokens.otherProject)).status).toBe(403);
    const notSlug = await put("New Service", DOC);
    expect(notSlug.status).toBe(404);
    expect(bodyOf(notSlug).error!.message).toContain('"new-service"');
  });

  it("answers only what the OpenAPI document allows: change kinds, and which base URLs a target takes", async () => {
    const schemas = (openApiDocument().components as { schemas: Record<string, Record<string, unknown>> }).schemas;
    const kinds = (schemas.ConfigChange!.properties as Record<string, { enum: string[] }>).kind!.enum;
    const plan = bodyOf(
      await put("documented-service", { ...DOC, project: "documented-service" }, tokens.config, true),
    );
    const answered = (plan.changes as { kind: string }[]).map((c) => c.kind);
    expect(answered).toContain("project");
    for (const kind of answered) expect(kinds).toContain(kind);

    const baseUrl = (schemas.ConfigTarget!.properties as Record<string, { pattern?: string; maxLength?: number }>)
      .baseUrl!;
    const documented = new RegExp(baseUrl.pattern!);
    const slug = projects.Other!.slug;
    for (const value of [
      "",
      "   ",
      "not a url",
      "ftp://127.0.0.1/",
      "http://",
      "http://127.0.0.1:8080",
      " HTTP://127.0.0.1:8081/v1 ",
    ]) {
      const res = await putConfigItemHandler(
        request("PUT", `/projects/${slug}/targets/doc-check`, tokens.otherProject!, { kind: "http", baseUrl: value }),
        deps,
        slug,
        "targets",
        "doc-check",
      );
      // The document accepts exactly what the server accepts; a refusal names the field.
      expect(res.status < 300, `${JSON.stringify(value)}: ${JSON.stringify(res.body)}`).toBe(documented.test(value));
      if (res.status >= 300) expect(bodyOf(res).error).toMatchObject({ field: "baseUrl" });
    }
  });

  it("needs the config scopes and the token's project", async () => {
    const slug = projects["Checkout API"]!.slug;
    expect((await put(slug, DOC, tokens.runsOnly)).status).toBe(403);
    expect((await get(slug, tokens.runsOnly)).status).toBe(403);
    expect((await put(slug, DOC, tokens.otherProject)).status).toBe(403);
    expect((await get(slug, tokens.otherProject)).status).toBe(404);
  });

  it("creates and updates one item by name, and lists each kind", async () => {
    const slug = projects.Other!.slug;
    const path = `/projects/${slug}/instance-configs/large`;
    const item = { vcpu: 8, memoryMb: 16384 };
    const created = await putConfigItemHandler(
      request("PUT", path, tokens.otherProject!, item),
      deps,
      slug,
      "instance-configs",
      "large",
    );
    expect(created.status).toBe(201);
    const again = await putConfigItemHandler(
      request("PUT", path, tokens.otherProject!, item),
      deps,
      slug,
      "instance-configs",
      "large",
    );
    expect(bodyOf(again).change).toEqual({ kind: "instanceConfig", name: "large", action: "unchanged" });
    const list = await listConfigHandler(
      request("GET", `/projects/${slug}/instance-configs`, tokens.otherProject!),
      deps,
      slug,
      "instance-configs",
    );
    expect(bodyOf(list).items).toEqual([{ name: "large", vcpu: 8, memoryMb: 16384, replicas: 1 }]);
    const unknown = await listConfigHandler(
      request("GET", `/projects/${slug}/widgets`, tokens.otherProject!),
      deps,
      slug,
      "widgets",
    );
    expect(unknown.status).toBe(404);
  });
});

describe("client-driven runs (benchboard exec)", () => {
  it("start, progress with live samples, finish with the result; a second finish is refused", async () => {
    const slug = projects["Checkout API"]!.slug;
    const start = await startExecRunHandler(
      request("POST", "/runs/exec", tokens.runsOnly!, {
        project: slug,
        tool: "vegeta",
        scenario: "steady",
        branch: "main",
      }),
      deps,
    );
    expect(start.status, JSON.stringify(start.body)).toBe(201);
    const run = bodyOf(start).run as { id: string; status: string; source: string; scenario: { id: string | null } };
    expect(run).toMatchObject({ status: "running", source: "exec:vegeta" });
    expect(run.scenario.id).not.toBeNull();

    const lines = readFileSync(`${FIXTURES}vegeta-results/mixed.jsonl`, "utf8").trimEnd().split("\n");
    const agg = new RequestAggregator("vegeta");
    for (const [i, text] of lines.entries()) agg.add(parseVegetaResultLine(i + 1, text)!);
    const second = agg.tick();
    const progress = await execProgressHandler(
      request("POST", `/runs/${run.id}/progress`, tokens.runsOnly!, { ...agg.progress(), samples: [second] }),
      deps,
      run.id,
    );
    expect(bodyOf(progress)).toEqual({ status: "running", cancelRequested: false });
    const stored = await t.db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(stored.progress).toMatchObject({ requests: 80, samples: [expect.objectContaining({ rps: second.rps })] });

    const bad = await execProgressHandler(
      request("POST", `/runs/${run.id}/progress`, tokens.runsOnly!, { ...agg.progress(), requests: -1 }),
      deps,
      run.id,
    );
    expect(bad.status).toBe(400);
    expect(bodyOf(bad).error!.field).toBe("requests");

    const finish = (token: string) =>
      finishExecRunHandler(
        request("POST", `/runs/${run.id}/finish`, token, { status: "succeeded", result: agg.result().result }),
        deps,
        run.id,
      );
    expect((await finish(tokens.reader!)).status).toBe(403);
    const done = await finish(tokens.runsOnly!);
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(bodyOf(done).run).toMatchObject({
      status: "succeeded",
      result: { metrics: { requests: 80, success: 56, failed: 24 }, statusCounts: { "200": 56, "500": 9 } },
      // The scenario's threshold (success_rate >= 99) is judged on the stored result.
      thresholds: { passed: false },
    });
    expect((await finish(tokens.runsOnly!)).status).toBe(409);
    const foreign = await execProgressHandler(
      request("POST", `/runs/${run.id}/progress`, tokens.otherProject!, agg.progress()),
      deps,
      run.id,
    );
    expect(foreign.status).toBe(404);
  });

  it("stores exactly one of eight concurrent finishes; the others are refused", async () => {
    const slug = projects["Checkout API"]!.slug;
    const start = await startExecRunHandler(
      request("POST", "/runs/exec", tokens.runsOnly!, { project: slug, tool: "vegeta", scenario: "steady" }),
      deps,
    );
    const runId = (bodyOf(start).run as { id: string }).id;
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        finishExecRunHandler(
          request("POST", `/runs/${runId}/finish`, tokens.runsOnly!, {
            status: "succeeded",
            result: { metrics: { requests: 100 + i } },
          }),
          deps,
          runId,
        ),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
    const winner = results.findIndex((r) => r.status === 200);
    const stored = await t.db.runResult.findUniqueOrThrow({ where: { runId } });
    expect((stored.metrics as Record<string, number>).requests).toBe(100 + winner);
  });
});
