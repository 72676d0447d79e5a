import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { RESULT_LIMITS, ZScenarioSpec } from "@benchboard/core";
import { importRun } from "@benchboard/core/importers";
import {
  type ApiTokenScope,
  createApiToken,
  createProject,
  createScenario,
  createTarget,
  recordVerifiedOrigin,
  revokeApiToken,
} from "@benchboard/db";
import { allowLoopbackTargets, type TestDatabase } from "@benchboard/db/testing";
import { startPrivateRedis } from "@benchboard/jobs/testing";
import { Validator } from "@seriousme/openapi-schema-validator";
import type { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFallbackRateLimiter, createRedisRateLimiter } from "../rate-limit";
import { startTestServices, type TestServices } from "../testing/services";
import { ZAgentResultInput } from "./agent-schemas";
import type { RestDeps, RestLimits } from "./auth";
import { compareHandler } from "./compare";
import type { RestResponse } from "./http";
import { openApiHandler, runSchemaHandler } from "./index";
import type { openApiDocument } from "./openapi";
import { getRunHandler, launchRunHandler, uploadRunHandler } from "./runs";
import { ZRestCompareResult, ZRestError, ZRestLaunchResult, ZRestRun, ZRestTrend, ZRestUploadResult } from "./schemas";
import { trendHandler } from "./trend";

// REST /api/v1 against real PostgreSQL, a real BullMQ queue and a real Redis rate limiter.
const FIXTURES = fileURLToPath(new URL("../../../core/src/importers/fixtures/", import.meta.url));
const fixture = (path: string) => readFileSync(`${FIXTURES}${path}`, "utf8");

let t: TestDatabase;
let queue: Queue;
let redis: Redis;
let services: TestServices;
const prefix = `bbrest-${randomBytes(4).toString("hex")}`;
let limiterCount = 0;

function deps(limits?: Partial<RestLimits>): RestDeps {
  // A fresh key space per call keeps one test's counters out of another's.
  limiterCount++;
  return {
    db: t.db,
    queue,
    rateLimit: createRedisRateLimiter(redis, `${prefix}:rl${limiterCount}:`),
    ...(limits ? { limits } : {}),
  };
}

let base: RestDeps;
const org = { id: "", slug: "" };
const other = { id: "", slug: "" };
const project = { id: "", slug: "" };
const second = { id: "", slug: "" };
const foreign = { id: "", slug: "" };
let writer = "";
let reader = "";
let launcher = "";
let projectScoped = "";
let otherOrgToken = "";

beforeAll(async () => {
  services = await startTestServices(prefix);
  ({ t, queue, redis } = services);
  // Test servers listen on 127.0.0.1, which this install's operator allows as a target.
  await allowLoopbackTargets(t.db);
  base = deps();
  Object.assign(org, await t.db.organization.create({ data: { name: "Acme", slug: "acme" } }));
  Object.assign(other, await t.db.organization.create({ data: { name: "Other", slug: "other" } }));
  Object.assign(project, await createProject(t.db, org.id, { name: "LLM gateway" }));
  Object.assign(second, await createProject(t.db, org.id, { name: "Chat service" }));
  Object.assign(foreign, await createProject(t.db, other.id, { name: "LLM gateway" }));
  const token = async (orgId: string, scopes: ApiTokenScope[], projectId: string | null = null) =>
    (await createApiToken(t.db, orgId, { name: scopes.join("+"), scopes, projectId, createdById: null })).token;
  writer = await token(org.id, ["runs:read", "runs:write"]);
  reader = await token(org.id, ["runs:read"]);
  launcher = await token(org.id, ["runs:read", "runs:launch"]);
  projectScoped = await token(org.id, ["runs:read", "runs:write", "runs:launch"], second.id);
  otherOrgToken = await token(other.id, ["runs:read", "runs:write", "runs:launch"]);
});

afterAll(async () => {
  await services?.close();
});

interface CallOptions {
  token?: string | null;
  body?: string;
  contentType?: string;
  headers?: Record<string, string>;
  deps?: RestDeps;
}

function request(method: string, path: string, options: CallOptions = {}): Request {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.contentType) headers["content-type"] = options.contentType;
  return new Request(`http://bench.test/api/v1${path}`, { method, headers, body: options.body });
}

const upload = (query: string, options: CallOptions = {}) =>
  uploadRunHandler(request("POST", `/runs${query}`, { token: writer, ...options }), options.deps ?? base);
const getRun = (id: string, options: CallOptions = {}) =>
  getRunHandler(request("GET", `/runs/${id}`, { token: reader, ...options }), options.deps ?? base, id);
const compare = (query: string, options: CallOptions = {}) =>
  compareHandler(request("GET", `/compare${query}`, { token: reader, ...options }), options.deps ?? base);
const launch = (body: unknown, options: CallOptions = {}) =>
  launchRunHandler(
    request("POST", "/runs/launch", {
      token: launcher,
      body: JSON.stringify(body),
      contentType: "application/json",
      ...options,
    }),
    options.deps ?? base,
  );

function errorOf(res: RestResponse) {
  return ZRestError.parse(res.body).error;
}

async function counts() {
  return { runs: await t.db.run.count(), results: await t.db.runResult.count(), series: await t.db.series.count() };
}

function nativeRun(metrics: Record<string, number>, extra: Record<string, unknown> = {}) {
  return JSON.stringify({ schemaVersion: 1, tool: { name: "custom" }, result: { metrics }, ...extra });
}

describe("POST /api/v1/runs", () => {
  it("stores a native run sent as the body, timed by its data, with thresholds judged", async () => {
    await t.db.project.update({
      where: { id: project.id },
      data: { thresholds: [{ metric: "latency_p99", op: "<", value: 5 }] },
    });
    await createScenario(t.db, org.id, {
      projectId: project.id,
      name: "chat 5k",
      spec: ZScenarioSpec.parse({ engine: "http-open", rate: 5000, durationS: 60 }),
      thresholds: [{ metric: "rps", op: ">=", value: 4900 }],
    });
    const body = nativeRun(
      { requests: 300_000, rps: 4998.7, latency_p50: 1.5, latency_p99: 6.9 },
      {
        startedAt: "2026-11-20T10:00:00Z",
        durationS: 60,
        git: { branch: "main", commit: "abc1234" },
        tags: ["nightly"],
        result: {
          metrics: { requests: 300_000, rps: 4998.7, latency_p50: 1.5, latency_p99: 6.9 },
          toolThresholds: [{ metric: "http_req_duration", expression: "p(95)<500", passed: true }],
          series: { rps: { start: 1_795_168_800_000, values: [4990, 5001, 5002] } },
        },
      },
    );
    const res = await upload(`?project=${project.slug}&scenario=${encodeURIComponent("chat 5k")}`, {
      body,
      contentType: "application/json",
    });
    expect(res.status).toBe(201);
    const { created, run } = ZRestUploadResult.parse(res.body);
    expect(created).toBe(true);
    expect(res.headers?.location).toBe(run.url);
    expect(run).toMatchObject({
      number: 1,
      status: "succeeded",
      source: "upload",
      project: { id: project.id, slug: project.slug },
      scenario: { name: "chat 5k" },
      git: { branch: "main", commit: "abc1234", ciUrl: null },
      tags: ["nightly"],
      startedAt: "2026-11-20T10:00:00.000Z",
      endedAt: "2026-11-20T10:01:00.000Z",
    });
    expect(run.scenario.id).not.toBeNull();
    expect(run.result?.metrics.rps).toBe(4998.7);
    expect(run.thresholds?.verdicts).toEqual([
      { metric: "latency_p99", op: "<", value: 5, actual: 6.9, status: "fail", passed: false, source: "project" },
      { metric: "rps", op: ">=", value: 4900, actual: 4998.7, status: "pass", passed: true, source: "scenario" },
    ]);
    expect(run.thresholds?.tool).toEqual([{ metric: "http_req_duration", expression: "p(95)<500", passed: true }]);
    expect(run.thresholds?.passed).toBe(false);
    const series = await t.db.series.findMany({ where: { runId: run.id } });
    expect(series.map((s) => [s.metric, s.values])).toEqual([["rps", [4990, 5001, 5002]]]);

    const fetched = await getRun(run.id);
    expect(fetched.status).toBe(200);
    expect(ZRestRun.parse(fetched.body)).toEqual(run);
    // An upload ran elsewhere: no placement.
    expect(run.placement).toBeNull();
    await t.db.project.update({ where: { id: project.id }, data: { thresholds: [] } });
  });

  const FOREIGN: [string, string, string, { provider?: string }?][] = [
    ["k6", "k6/summary-export.json", "application/json"],
    ["k6", "k6/handle-summary.json", "application/json"],
    ["drill", "drill/stats.txt", "text/plain"],
    ["wrk", "wrk/latency.txt", "text/plain"],
    ["wrk", "wrk2/latency.txt", "text/plain"],
    ["hey", "hey/mixed.txt", "text/plain"],
    ["ab", "ab/basic.txt", "text/plain"],
    ["vegeta", "vegeta/mixed.json", "application/json"],
    ["bifrost", "bifrost/results.json", "application/json", { provider: "litellm" }],
  ];

  for (const [format, file, contentType, options] of FOREIGN) {
    it(`imports ${file} as ${format}, detected from the content`, async () => {
      const text = fixture(file);
      const expected = importRun(format as "k6", text, options ?? {});
      const provider = options?.provider ? `&provider=${options.provider}` : "";
      const res = await upload(`?project=${project.id}&format=auto${provider}`, { body: text, contentType });
      expect(res.status).toBe(201);
      const { run } = ZRestUploadResult.parse(res.body);
      expect(run.source).toBe(`import:${format}`);
      expect(run.status).toBe("succeeded");
      expect(run.result?.metrics).toEqual(expected.result.metrics);
      expect(run.result?.statusCounts).toEqual(expected.result.statusCounts);
      expect(run.scenario.name).toBe(expected.scenario?.name ?? expected.tool?.name);
      expect(run.startedAt).toBe(expected.startedAt ? new Date(expected.startedAt).toISOString() : run.startedAt);
      expect(run.thresholds?.tool).toEqual(expected.result.toolThresholds ?? []);
    });
  }

  it("keeps the tool's own failed verdicts (k6 thresholds) and says the run did not pass", async () => {
    const res = await upload(`?project=${project.slug}&format=k6`, {
      body: fixture("k6/summary-export.json"),
      contentType: "application/json",
    });
    const { run } = ZRestUploadResult.parse(res.body);
    expect(run.thresholds?.tool).toContainEqual({ metric: "http_req_failed", expression: "rate<0.01", passed: false });
    expect(run.thresholds?.passed).toBe(false);
  });

  it("takes a JSON envelope with the file as text and what only the uploader knows", async () => {
    const res = await upload("", {
      contentType: "application/json",
      body: JSON.stringify({
        project: project.slug,
        scenario: "static files",
        format: "wrk",
        content: fixture("wrk/latency.txt"),
        instanceConfig: {
          instanceType: "t3.medium",
          vcpu: 2,
          memoryMb: 4096,
          cpuLimit: 1.5,
          replicas: 2,
          knobs: { workers: 8 },
        },
        branch: "feature/pool",
        commit: "0123456789abcdef",
        ciUrl: "https://ci.example.com/jobs/42",
        tags: ["pr", "wrk"],
        notes: "pool size 8",
      }),
    });
    expect(res.status).toBe(201);
    const { run } = ZRestUploadResult.parse(res.body);
    expect(run).toMatchObject({
      source: "import:wrk",
      scenario: { id: null, name: "static files" },
      git: { branch: "feature/pool", commit: "0123456789abcdef", ciUrl: "https://ci.example.com/jobs/42" },
      tags: ["pr", "wrk"],
      notes: "pool size 8",
      instanceConfig: {
        instanceType: "t3.medium",
        vcpu: 2,
        memoryMb: 4096,
        cpuLimit: 1.5,
        replicas: 2,
        knobs: { workers: 8 },
      },
    });
  });

  it("takes a native run inside the envelope, and a text body with fields as query parameters", async () => {
    const enveloped = await upload("", {
      contentType: "application/json",
      body: JSON.stringify({ project: project.slug, run: JSON.parse(nativeRun({ rps: 10 })), tags: ["x"] }),
    });
    expect(enveloped.status).toBe(201);
    expect(ZRestUploadResult.parse(enveloped.body).run).toMatchObject({ source: "upload", tags: ["x"] });

    const query = `?project=${project.slug}&format=hey&branch=main&tag=a&tags=b,c&instanceConfig=${encodeURIComponent('{"vcpu":4}')}`;
    const raw = await upload(query, { body: fixture("hey/mixed.txt"), contentType: "text/plain" });
    expect(raw.status).toBe(201);
    expect(ZRestUploadResult.parse(raw.body).run).toMatchObject({
      source: "import:hey",
      git: { branch: "main" },
      tags: ["a", "b", "c"],
      instanceConfig: { vcpu: 4 },
    });
  });

  describe("Idempotency-Key", () => {
    it("returns the run stored the first time, with 200, and stores one run", async () => {
      const key = `ci-${randomBytes(6).toString("hex")}`;
      const send = () =>
        upload(`?project=${project.slug}`, {
          body: nativeRun({ rps: 42 }),
          contentType: "application/json",
          headers: { "idempotency-key": key },
        });
      const first = await send();
      const before = await counts();
      const again = await send();
      expect(first.status).toBe(201);
      expect(again.status).toBe(200);
      const a = ZRestUploadResult.parse(first.body);
      const b = ZRestUploadResult.parse(again.body);
      expect(b.created).toBe(false);
      expect(b.run.id).toBe(a.run.id);
      expect(await counts()).toEqual(before);
    });

    it("stores one run when two retries race", async () => {
      const key = `race-${randomBytes(6).toString("hex")}`;
      const results = await Promise.all(
        [1, 2, 3].map(() =>
          upload(`?project=${project.slug}&format=wrk`, {
            body: fixture("wrk/latency.txt"),
            contentType: "text/plain",
            headers: { "idempotency-key": key },
          }),
        ),
      );
      expect(results.map((r) => r.status).sort()).toEqual([200, 200, 201]);
      const ids = new Set(results.map((r) => ZRestUploadResult.parse(r.body).run.id));
      expect(ids.size).toBe(1);
      expect(await t.db.run.count({ where: { idempotencyKey: key } })).toBe(1);
    });

    it("is per organization", async () => {
      const key = `shared-${randomBytes(6).toString("hex")}`;
      const mine = await upload(`?project=${project.slug}`, {
        body: nativeRun({ rps: 1 }),
        contentType: "application/json",
        headers: { "idempotency-key": key },
      });
      const theirs = await upload(`?project=${foreign.slug}`, {
        token: otherOrgToken,
        body: nativeRun({ rps: 1 }),
        contentType: "application/json",
        headers: { "idempotency-key": key },
      });
      expect([mine.status, theirs.status]).toEqual([201, 201]);
    });

    it("refuses a key that cannot be one, naming the header", async () => {
      const res = await upload(`?project=${project.slug}`, {
        body: nativeRun({ rps: 1 }),
        contentType: "application/json",
        headers: { "idempotency-key": "x".repeat(300) },
      });
      expect(res.status).toBe(400);
      expect(errorOf(res)).toMatchObject({
        field: "Idempotency-Key",
        message: expect.stringMatching(/^Idempotency-Key: /),
      });
    });
  });

  describe("bad input gets a JSON error naming the field or line, and stores nothing", () => {
    const cases: [string, string, CallOptions, { status: number; field?: string; line?: number; message: RegExp }][] = [
      [
        "a truncated wrk output",
        `?project=acme-gw&format=wrk`,
        { body: fixture("wrk/latency.txt").split("\n").slice(0, 11).join("\n"), contentType: "text/plain" },
        { status: 400, line: 11, message: /^wrk output, line 11: no "Requests\/sec:" line/ },
      ],
      [
        "the wrong format for the file",
        `?project=acme-gw&format=vegeta`,
        { body: fixture("ab/basic.txt"), contentType: "text/plain" },
        { status: 400, line: 1, message: /^vegeta JSON report, line 1: not JSON/ },
      ],
      [
        "a native run with a bad metric",
        `?project=acme-gw`,
        { body: nativeRun({ rps: "fast" } as never), contentType: "application/json" },
        { status: 400, field: "result.metrics.rps", message: /field "result\.metrics\.rps"/ },
      ],
      [
        "content no importer recognises",
        `?project=acme-gw`,
        { body: "just some text\n", contentType: "text/plain" },
        { status: 400, field: "format", message: /could not tell the format/ },
      ],
      [
        "a JSON body that is not JSON",
        `?project=acme-gw`,
        { body: '{"project": "x",\n oops}', contentType: "application/json" },
        { status: 400, line: 2, message: /not valid JSON \(line 2\)/ },
      ],
      [
        "a bad commit in the envelope",
        "",
        {
          body: JSON.stringify({ project: "acme-gw", content: "x", commit: "not-a-sha" }),
          contentType: "application/json",
        },
        { status: 400, field: "commit", message: /^commit: must be a hexadecimal commit id/ },
      ],
      [
        "a tag with a comma",
        "",
        {
          body: JSON.stringify({ project: "acme-gw", content: "x", tags: ["ok", "a,b"] }),
          contentType: "application/json",
        },
        { status: 400, field: "tags.1", message: /^tags\.1: tags cannot contain commas/ },
      ],
      [
        "an unknown format",
        `?project=acme-gw&format=locust`,
        { body: "x", contentType: "text/plain" },
        { status: 400, field: "format", message: /^format: must be one of auto, native, k6/ },
      ],
      [
        "no project",
        "?format=wrk",
        { body: fixture("wrk/latency.txt"), contentType: "text/plain" },
        { status: 400, field: "project", message: /^project: required/ },
      ],
      [
        "an unknown project",
        "?project=nope",
        { body: fixture("wrk/latency.txt"), contentType: "text/plain" },
        { status: 404, field: "project", message: /^project: no project "nope"/ },
      ],
      [
        "an empty body",
        "?project=acme-gw",
        { body: "", contentType: "text/plain" },
        { status: 400, field: "content", message: /^content: the uploaded content is empty/ },
      ],
      [
        "a form upload",
        "?project=acme-gw",
        { body: "a=b", contentType: "application/x-www-form-urlencoded" },
        { status: 415, message: /send the file as the request body/ },
      ],
      [
        "a JSON envelope nested 100,000 levels deep",
        "",
        {
          body: `{"project":"acme-gw","run":{"schemaVersion":1,"result":{"metrics":{},"extra":{"x":${"[".repeat(100_000)}${"]".repeat(100_000)}}}}}`,
          contentType: "application/json",
        },
        { status: 400, line: 1, message: /nests deeper than 64 levels/ },
      ],
      [
        "a native run nested 100,000 levels deep, sent as text",
        "?project=acme-gw&format=native",
        {
          body: `{"schemaVersion":1,\n"result":{"metrics":{},"extra":{"x":${"[".repeat(100_000)}${"]".repeat(100_000)}}}}`,
          contentType: "text/plain",
        },
        { status: 400, line: 2, message: /nests deeper than 64 levels/ },
      ],
      [
        "a NUL character in a JSON body",
        "",
        { body: '{"project":"acme-gw","content":"Total: 1\\u0000"}', contentType: "application/json" },
        { status: 400, message: /NUL character/ },
      ],
      [
        "a NUL character in the query",
        "?project=acme-gw%00&format=wrk",
        { body: "x", contentType: "text/plain" },
        { status: 400, message: /NUL character/ },
      ],
      [
        "a bifrost file with several providers and no choice",
        "?project=acme-gw",
        { body: fixture("bifrost/results.json"), contentType: "application/json" },
        { status: 400, field: "(document)", message: /holds results for 3 providers/ },
      ],
    ];
    for (const [name, query, options, expected] of cases) {
      it(name, async () => {
        const before = await counts();
        const res = await upload(query.replace("acme-gw", project.slug), {
          ...options,
          body: options.body?.replaceAll("acme-gw", project.slug),
        });
        expect(res.status).toBe(expected.status);
        const error = errorOf(res);
        expect(error.message).toMatch(expected.message);
        if (expected.field !== undefined) expect(error.field).toBe(expected.field);
        if (expected.line !== undefined) expect(error.line).toBe(expected.line);
        expect(await counts()).toEqual(before);
      });
    }
  });

  it("refuses a body over the size limit with 413, by declared length or by bytes read", async () => {
    const before = await counts();
    const small = deps({ maxBodyBytes: 2_000 });
    const text = fixture("wrk/latency.txt").repeat(6);
    expect(text.length).toBeGreaterThan(2_000);
    const streamed = await upload(`?project=${project.slug}&format=wrk`, {
      body: text,
      contentType: "text/plain",
      deps: small,
    });
    expect(streamed.status).toBe(413);
    expect(errorOf(streamed).message).toMatch(/larger than 2000 bytes/);
    const declared = await upload(`?project=${project.slug}`, {
      body: "{}",
      contentType: "application/json",
      headers: { "content-length": "10000001" },
    });
    expect(declared.status).toBe(413);
    expect(errorOf(declared).message).toMatch(/larger than 10000000 bytes \(10 MB\)/);
    expect(await counts()).toEqual(before);
  });
});

describe("every record of an uploaded result is bounded", () => {
  const keys = (n: number, value: (i: number) => unknown) =>
    Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, value(i)]));
  const list = (n: number, value: (i: number) => unknown) => Array.from({ length: n }, (_, i) => value(i));
  const result = (parts: Record<string, unknown>) =>
    JSON.stringify({ schemaVersion: 1, tool: { name: "custom" }, result: { metrics: { rps: 1 }, ...parts } });
  const OVER: [string, Record<string, unknown>, string, RegExp][] = [
    ["metrics", { metrics: keys(200_000, (i) => i) }, "result.metrics", /has 200,000 metrics; at most 5,000/],
    [
      "status counts",
      { statusCounts: keys(RESULT_LIMITS.statusCounts + 1, () => 1) },
      "result.statusCounts",
      /has 1,001 status codes; at most 1,000/,
    ],
    [
      "errors",
      { errors: list(RESULT_LIMITS.errors + 1, (i) => ({ kind: "transport", message: `e${i}`, count: 1 })) },
      "result.errors",
      /has 1,001 error entries; at most 1,000/,
    ],
    ["stages", { stages: keys(RESULT_LIMITS.stages + 1, () => ({ meanMs: 1 })) }, "result.stages", /at most 200/],
    [
      "series",
      { series: keys(RESULT_LIMITS.series + 1, () => ({ start: 0, values: [1] })) },
      "result.series",
      /has 101 series; at most 100/,
    ],
    [
      "histograms",
      { histograms: keys(RESULT_LIMITS.histograms + 1, () => "x") },
      "result.histograms",
      /has 301 histograms; at most 300/,
    ],
    [
      "tool verdicts",
      {
        toolThresholds: list(RESULT_LIMITS.toolThresholds + 1, () => ({ metric: "m", expression: "e", passed: true })),
      },
      "result.toolThresholds",
      /at most 1,000/,
    ],
    ["extra", { extra: { blob: "x".repeat(RESULT_LIMITS.extraChars) } }, "result.extra", /as JSON; at most 1,000,000/],
  ];

  for (const [what, parts, field, message] of OVER) {
    it(`refuses too many ${what} with a 400 naming ${field} and the limit, storing nothing`, async () => {
      const before = await counts();
      const metricRows = await t.db.runMetric.count();
      const res = await upload(`?project=${project.slug}`, { body: result(parts), contentType: "application/json" });
      expect(res.status).toBe(400);
      expect(errorOf(res)).toMatchObject({ field, message: expect.stringMatching(message) });
      expect(await counts()).toEqual(before);
      expect(await t.db.runMetric.count()).toBe(metricRows);
    });
  }

  it("refuses 200,000 metric keys however the run is sent: in the envelope, or as text", async () => {
    const run = JSON.parse(result({ metrics: keys(200_000, (i) => i) })) as unknown;
    const before = await counts();
    const envelope = await upload("", {
      body: JSON.stringify({ project: project.slug, run }),
      contentType: "application/json",
    });
    const text = await upload(`?project=${project.slug}&format=native`, {
      body: JSON.stringify(run),
      contentType: "text/plain",
    });
    for (const res of [envelope, text]) {
      expect(res.status).toBe(400);
      expect(errorOf(res)).toMatchObject({ field: "result.metrics", message: expect.stringMatching(/at most 5,000/) });
    }
    expect(await counts()).toEqual(before);
  });

  it("bounds what an importer keeps: a k6 summary of 20,000 metrics is refused at result.extra", async () => {
    const doc = JSON.parse(fixture("k6/summary-export.json")) as { metrics: Record<string, unknown> };
    for (let i = 0; i < 20_000; i++) doc.metrics[`custom_trend_${i}`] = { avg: 1, min: 1, med: 1, max: 1, "p(90)": 1 };
    const before = await counts();
    const res = await upload(`?project=${project.slug}&format=k6`, {
      body: JSON.stringify(doc),
      contentType: "application/json",
    });
    expect(res.status).toBe(400);
    expect(errorOf(res)).toMatchObject({ field: "result.extra", message: expect.stringMatching(/^k6 summary, field/) });
    expect(await counts()).toEqual(before);
  });

  it("takes a result at every limit, so real runs fit", async () => {
    const res = await upload(`?project=${project.slug}`, {
      body: result({
        metrics: keys(RESULT_LIMITS.metrics, (i) => i),
        statusCounts: keys(RESULT_LIMITS.statusCounts, () => 1),
        stages: keys(RESULT_LIMITS.stages, () => ({ meanMs: 1 })),
        extra: { blob: "x".repeat(RESULT_LIMITS.extraChars - 100) },
      }),
      contentType: "application/json",
    });
    expect(res.status).toBe(201);
    const { run } = ZRestUploadResult.parse(res.body);
    expect(await t.db.runMetric.count({ where: { runId: run.id } })).toBe(RESULT_LIMITS.metrics);
  });

  it("bounds an agent's result with the same schema", () => {
    const parsed = ZAgentResultInput.safeParse({
      agentId: "a",
      status: "succeeded",
      result: { metrics: keys(200_000, (i) => i), startedAt: 0, endedAt: 1 },
    });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]).toMatchObject({
      path: ["result", "metrics"],
      message: expect.stringMatching(/at most 5,000/),
    });
  });
});

describe("links in responses", () => {
  const spoofed = { "x-forwarded-host": "evil.example", "x-forwarded-proto": "javascript" };

  it("point at the configured public URL whatever X-Forwarded-Host and -Proto say", async () => {
    const configured: RestDeps = { ...deps(), publicUrl: "https://bench.example.com/perf/" };
    const res = await upload(`?project=${project.slug}`, {
      body: nativeRun({ rps: 10 }),
      contentType: "application/json",
      headers: spoofed,
      deps: configured,
    });
    expect(res.status).toBe(201);
    const { run } = ZRestUploadResult.parse(res.body);
    expect(run.url).toBe(`https://bench.example.com/perf/runs/${run.id}`);
    expect(res.headers?.location).toBe(run.url);
    const fetched = await getRun(run.id, { headers: spoofed, deps: configured });
    expect(ZRestRun.parse(fetched.body).url).toBe(`https://bench.example.com/perf/runs/${run.id}`);
  });

  it("without a configured URL, point at the address the request was sent to, never a forwarded one", async () => {
    const res = await upload(`?project=${project.slug}`, {
      body: nativeRun({ rps: 11 }),
      contentType: "application/json",
      headers: spoofed,
    });
    const { run } = ZRestUploadResult.parse(res.body);
    expect(run.url).toBe(`http://bench.test/runs/${run.id}`);
    expect(res.headers?.location).toBe(run.url);
    expect(JSON.stringify(res.body)).not.toContain("evil.example");
  });
});

describe("tokens", () => {
  it("refuses a missing, malformed, unknown, revoked or expired token with 401 and stores nothing", async () => {
    const revoked = await createApiToken(t.db, org.id, { name: "old", scopes: ["runs:write"], createdById: null });
    await revokeApiToken(t.db, org.id, revoked.record.id);
    const expired = await createApiToken(t.db, org.id, {
      name: "expired",
      scopes: ["runs:write"],
      createdById: null,
      expiresAt: new Date(Date.now() - 1000),
    });
    const before = await counts();
    const body = { body: nativeRun({ rps: 1 }), contentType: "application/json" };
    const missing = await upload(`?project=${project.slug}`, { ...body, token: null });
    expect(missing.status).toBe(401);
    expect(missing.headers?.["www-authenticate"]).toMatch(/^Bearer/);
    expect(errorOf(missing).message).toMatch(/missing API token/);
    const malformed = await upload(`?project=${project.slug}`, {
      ...body,
      token: null,
      headers: { authorization: writer },
    });
    expect(errorOf(malformed).message).toMatch(/must be: Bearer <token>/);
    for (const token of ["bb_notarealtoken", revoked.token, expired.token]) {
      const res = await upload(`?project=${project.slug}`, { ...body, token });
      expect(res.status).toBe(401);
      expect(errorOf(res).message).toBe("the API token is invalid, revoked or expired");
      // The token never comes back in a response.
      expect(JSON.stringify(res.body)).not.toContain(token);
    }
    expect(await counts()).toEqual(before);
  });

  it("acts with its creator's role: read-only once they are a viewer, refused once they leave", async () => {
    const user = await t.db.user.create({ data: { email: `ci-${randomBytes(3).toString("hex")}@example.com` } });
    const membership = await t.db.membership.create({ data: { orgId: org.id, userId: user.id, role: "member" } });
    const { token } = await createApiToken(t.db, org.id, {
      name: "personal",
      scopes: ["runs:read", "runs:write"],
      createdById: user.id,
    });
    const body = { body: nativeRun({ rps: 7 }), contentType: "application/json", token };
    const stored = await upload(`?project=${project.slug}`, body);
    expect(stored.status).toBe(201);
    const runId = ZRestUploadResult.parse(stored.body).run.id;

    await t.db.membership.update({ where: { id: membership.id }, data: { role: "viewer" } });
    const before = await counts();
    const refused = await upload(`?project=${project.slug}`, body);
    expect(refused.status).toBe(403);
    expect(errorOf(refused).message).toMatch(/member role/);
    expect(await counts()).toEqual(before);
    expect((await getRun(runId, { token })).status).toBe(200);

    await t.db.membership.delete({ where: { id: membership.id } });
    const gone = await getRun(runId, { token });
    expect(gone.status).toBe(401);
    expect(errorOf(gone).message).toBe("the API token is invalid, revoked or expired");
  });

  it("refuses a token of another organization than the one pinned with Benchboard-Org", async () => {
    const wrong = await getRun("anything", { token: otherOrgToken, headers: { "benchboard-org": org.slug } });
    expect(wrong.status).toBe(401);
    expect(errorOf(wrong).message).toMatch(/does not belong to the organization "acme"/);
    const res = await upload(`?project=${project.slug}`, {
      body: nativeRun({ rps: 3 }),
      contentType: "application/json",
      headers: { "benchboard-org": org.slug },
    });
    expect(res.status).toBe(201);
  });

  it("never lets another organization's token reach this organization's runs or projects", async () => {
    const mine = ZRestUploadResult.parse(
      (await upload(`?project=${project.slug}`, { body: nativeRun({ rps: 5 }), contentType: "application/json" })).body,
    ).run;
    const read = await getRun(mine.id, { token: otherOrgToken });
    expect(read.status).toBe(404);
    expect(errorOf(read)).toEqual({ message: `id: run ${mine.id} not found`, field: "id" });
    const before = await counts();
    // The other organization has a project with the same slug: the upload lands there, never here.
    const write = await upload(`?project=${project.id}`, {
      token: otherOrgToken,
      body: nativeRun({ rps: 5 }),
      contentType: "application/json",
    });
    expect(write.status).toBe(404);
    expect(errorOf(write).field).toBe("project");
    expect(await counts()).toEqual(before);
    const cmp = await compare(`?base=${mine.id}&head=${mine.id}`, { token: otherOrgToken });
    expect(cmp.status).toBe(404);
    expect(errorOf(cmp).field).toBe("head");
  });

  it("enforces scopes per route", async () => {
    const readOnly = await upload(`?project=${project.slug}`, {
      token: reader,
      body: nativeRun({ rps: 1 }),
      contentType: "application/json",
    });
    expect(readOnly.status).toBe(403);
    expect(errorOf(readOnly).message).toBe("the API token lacks the runs:write scope (it has: runs:read)");
    const writeOnly = (await createApiToken(t.db, org.id, { name: "w", scopes: ["runs:write"], createdById: null }))
      .token;
    expect((await getRun("x", { token: writeOnly })).status).toBe(403);
    expect((await compare("?base=a&head=b", { token: writeOnly })).status).toBe(403);
    const noLaunch = await launch({ project: project.slug, scenario: "chat 5k", target: "gw" }, { token: writer });
    expect(noLaunch.status).toBe(403);
    expect(errorOf(noLaunch).message).toMatch(/lacks the runs:launch scope/);
  });

  it("keeps a project-scoped token inside its project", async () => {
    const elsewhere = await upload(`?project=${project.slug}`, {
      token: projectScoped,
      body: nativeRun({ rps: 1 }),
      contentType: "application/json",
    });
    expect(elsewhere.status).toBe(403);
    expect(errorOf(elsewhere)).toEqual({
      message: "project: this API token is limited to another project",
      field: "project",
    });
    const own = await upload(`?project=${second.slug}`, {
      token: projectScoped,
      body: nativeRun({ rps: 1 }),
      contentType: "application/json",
    });
    expect(own.status).toBe(201);
    const ownRun = ZRestUploadResult.parse(own.body).run;
    expect((await getRun(ownRun.id, { token: projectScoped })).status).toBe(200);
    const outside = ZRestUploadResult.parse(
      (await upload(`?project=${project.slug}`, { body: nativeRun({ rps: 1 }), contentType: "application/json" })).body,
    ).run;
    expect((await getRun(outside.id, { token: projectScoped })).status).toBe(404);
    expect((await compare(`?base=${outside.id}&head=${ownRun.id}`, { token: projectScoped })).status).toBe(404);
  });

  it("keeps serving while the rate limiter's Redis is down, still limiting in the process, and logs the outage once", async () => {
    const own = await startPrivateRedis();
    const shared = new Redis(own.url, { maxRetriesPerRequest: 1, connectTimeout: 500 });
    shared.on("error", () => {});
    const logged: string[] = [];
    const limited: RestDeps = {
      ...base,
      rateLimit: createFallbackRateLimiter(createRedisRateLimiter(shared, `${prefix}:fb:`), (l) => logged.push(l)),
      limits: { requestsPerWindow: 4, windowS: 60 },
    };
    try {
      expect((await getRun("missing", { deps: limited })).status).toBe(404);
      // Counted in Redis while it answers.
      expect(await shared.keys(`${prefix}:fb:*`)).toHaveLength(1);
      await own.stop();
      // Reads and writes go on; an upload is stored.
      const before = await counts();
      const stored = await upload(`?project=${project.slug}`, {
        body: nativeRun({ rps: 1 }),
        contentType: "application/json",
        deps: limited,
      });
      expect(stored.status).toBe(201);
      expect((await counts()).runs).toBe(before.runs + 1);
      // Counted in this process while Redis is away: the limit still holds.
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await getRun("missing", { deps: limited })).status);
      expect(statuses).toEqual([404, 404, 404, 404, 429]);
      expect(logged).toHaveLength(1);
      expect(logged[0]).toMatch(/^Redis is unreachable \(.+\); counting limits in this process until it answers$/);
    } finally {
      shared.disconnect();
      await own.stop().catch(() => {});
    }
  });

  it("limits requests per token with 429 and Retry-After", async () => {
    const limited = deps({ requestsPerWindow: 3, windowS: 60 });
    const statuses: number[] = [];
    let last: RestResponse | undefined;
    for (let i = 0; i < 5; i++) {
      last = await getRun("missing", { deps: limited });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([404, 404, 404, 429, 429]);
    expect(Number(last?.headers?.["retry-after"])).toBeGreaterThan(0);
    expect(Number(last?.headers?.["retry-after"])).toBeLessThanOrEqual(60);
    expect(errorOf(last!).message).toMatch(/too many requests with this token: at most 3 per 60 s/);
    // Another token has its own window.
    expect((await getRun("missing", { deps: limited, token: writer })).status).toBe(404);
  });
});

describe("POST /api/v1/runs/launch", () => {
  let targetPort = 0;
  beforeAll(async () => {
    targetPort = 40_000 + Math.floor(Math.random() * 1000);
    await createTarget(t.db, org.id, {
      projectId: project.id,
      name: "gw",
      kind: "http",
      baseUrl: `http://127.0.0.1:${targetPort}`,
    });
    // Acme is a tenant: it has proved it controls the target's origin.
    await recordVerifiedOrigin(t.db, org.id, `http://127.0.0.1:${targetPort}`, "http", { addresses: ["127.0.0.1"] });
  });

  it("queues a stored scenario by project and name on a named target, through the same checks as the UI", async () => {
    const res = await launch({ project: project.slug, scenario: "chat 5k", target: "gw", tags: ["ci"] });
    expect(res.status).toBe(201);
    const { run, groupRunIds } = ZRestLaunchResult.parse(res.body);
    expect(run).toMatchObject({ status: "queued", source: "launched", scenario: { name: "chat 5k" }, tags: ["ci"] });
    expect(groupRunIds).toEqual([run.id]);
    const job = await queue.getJob(run.id);
    expect(job?.data).toEqual({ runId: run.id });
    const status = await getRun(run.id);
    expect(ZRestRun.parse(status.body).status).toBe("queued");
    // Where it goes: the install's workers, any label; its one shard (numbered from 1) not yet taken.
    expect(ZRestRun.parse(status.body).placement).toEqual({
      runsOn: "worker",
      label: null,
      shardCount: 1,
      shards: [{ shard: 1, status: "queued", agent: null, worker: null, error: null }],
      agents: [],
    });
  });

  it("launches once per Idempotency-Key: a retry, even a concurrent one, gets the first launch's runs", async () => {
    const body = { project: project.slug, scenario: "chat 5k", target: "gw", repetitions: 2 };
    const key = { headers: { "idempotency-key": `ci-${randomBytes(4).toString("hex")}` } };
    const before = await t.db.run.count();
    const first = await launch(body, key);
    expect(first.status).toBe(201);
    const launched = ZRestLaunchResult.parse(first.body);
    expect(launched.created).toBe(true);
    expect(launched.groupRunIds).toHaveLength(2);
    const retry = await launch(body, key);
    expect(retry.status).toBe(200);
    expect(ZRestLaunchResult.parse(retry.body)).toMatchObject({
      created: false,
      run: { id: launched.run.id },
      groupRunIds: launched.groupRunIds,
    });
    expect(await t.db.run.count()).toBe(before + 2);
    await t.db.run.updateMany({ where: { orgId: org.id, status: "queued" }, data: { status: "canceled" } });
    // Uploads keep keys of their own: the same key on an upload stores a new run.
    const uploaded = await upload(`?project=${project.slug}`, {
      body: nativeRun({ rps: 5 }),
      contentType: "application/json",
      ...key,
    });
    expect(uploaded.status).toBe(201);
    expect(ZRestUploadResult.parse(uploaded.body).run.id).not.toBe(launched.run.id);
    expect((await launch(body, key)).status).toBe(200);
    await t.db.run.deleteMany({ where: { id: ZRestUploadResult.parse(uploaded.body).run.id } });

    const raceKey = { headers: { "idempotency-key": `race-${randomBytes(4).toString("hex")}` } };
    const single = { project: project.slug, scenario: "chat 5k", target: "gw" };
    const raced = await Promise.all([launch(single, raceKey), launch(single, raceKey), launch(single, raceKey)]);
    expect(raced.map((r) => r.status).sort()).toEqual([200, 200, 201]);
    const ids = new Set(raced.map((r) => ZRestLaunchResult.parse(r.body).run.id));
    expect(ids.size).toBe(1);
    expect(await t.db.run.count()).toBe(before + 3);
    expect(await queue.getJob([...ids][0]!)).toBeDefined();
    await t.db.run.updateMany({ where: { orgId: org.id, status: "queued" }, data: { status: "canceled" } });

    const bad = await launch(single, { headers: { "idempotency-key": "has spaces" } });
    expect(bad.status).toBe(400);
    expect(errorOf(bad)).toMatchObject({ field: "Idempotency-Key" });
    expect(errorOf(bad).message).toBe("Idempotency-Key: must be visible ASCII characters");
    expect(await t.db.run.count()).toBe(before + 3);
  });

  it("names what it cannot find, and refuses over the organization's caps", async () => {
    const scenario = await t.db.scenario.findFirstOrThrow({ where: { projectId: project.id, name: "chat 5k" } });
    const noTarget = await launch({ scenario: scenario.id, target: "nope" });
    expect(noTarget.status).toBe(404);
    expect(errorOf(noTarget).field).toBe("target");
    const noScenario = await launch({ project: project.slug, scenario: "nope", target: "gw" });
    expect(errorOf(noScenario)).toMatchObject({ field: "scenario" });
    const badBody = await launch({ project: project.slug, target: "gw" });
    expect(badBody.status).toBe(400);
    expect(errorOf(badBody).field).toBe("scenario");
    const otherOrg = await launch({ scenario: scenario.id, target: "gw" }, { token: otherOrgToken });
    expect(otherOrg.status).toBe(404);

    await t.db.organization.update({ where: { id: org.id }, data: { caps: { maxRate: 100 } } });
    const before = await t.db.run.count();
    const capped = await launch({ scenario: scenario.id, target: "gw" });
    expect(capped.status).toBe(409);
    expect(errorOf(capped)).toMatchObject({ field: "scenarioId" });
    expect(errorOf(capped).message).toMatch(/chat 5k/);
    expect(await t.db.run.count()).toBe(before);
    await t.db.organization.update({ where: { id: org.id }, data: { caps: {} } });
  });
});

describe("GET /api/v1/compare", () => {
  const ids: Record<string, string> = {};
  const store = async (name: string, branch: string, metrics: Record<string, number>, scenario = "checkout") => {
    const res = await upload(`?project=${project.slug}&scenario=${scenario}&branch=${branch}`, {
      body: nativeRun(metrics),
      contentType: "application/json",
    });
    ids[name] = ZRestUploadResult.parse(res.body).run.id;
  };

  beforeAll(async () => {
    await store("oldMain", "main", { rps: 500, latency_p99: 20 });
    await store("otherScenario", "main", { rps: 2000, latency_p99: 2 }, "login");
    await store("main", "main", { rps: 1000, latency_p50: 4, latency_p99: 10, requests: 60_000 });
    await store("slower", "feature", { rps: 900, latency_p50: 4.1, latency_p99: 10.2, requests: 54_000 });
    await store("same", "feature", { rps: 990, latency_p50: 3.9, latency_p99: 10.3, requests: 59_400 });
  });

  it("is inconclusive on a baseline shorter than the runs it needs, and says so", async () => {
    const res = await compare(`?base=branch:main&head=${ids.slower}`);
    expect(res.status).toBe(200);
    const result = ZRestCompareResult.parse(res.body);
    expect(result).toMatchObject({ outcome: "inconclusive", passed: false, reasons: [], gate: "noise" });
    // The branch's runs of head's scenario only (not "login"), oldest first.
    expect(result.baseline).toEqual({
      branch: "main",
      required: 5,
      runs: [
        { id: ids.oldMain, number: expect.any(Number) },
        { id: ids.main, number: expect.any(Number) },
      ],
    });
    expect(result.base.id).toBe(ids.main);
    // Both runs carry the title the web app names them by (no load or config known: the scenario).
    expect(result.head.title).toMatch(/^Run #\d+ · checkout$/);
    expect(result.base.title).toBe(`Run #${result.base.number} · checkout`);
    expect(result.inconclusiveReasons[0]).toBe(
      "the baseline has 2 of the 5 runs of main it needs (same scenario and config, succeeded and valid): too few to tell a change from noise",
    );
    // rps 900 against a median of 750: beyond the tolerance, with no noise to judge it by.
    expect(result.metrics.find((m) => m.key === "rps")).toMatchObject({
      base: 750,
      verdict: "inconclusive",
      noise: null,
    });
  });

  it("is inconclusive, not passed, when neither side has a metric it was asked to judge", async () => {
    // Two runs that measured only a custom figure: none of the metrics a gate judges by default.
    await store("customBase", "main", { "custom.queue_depth": 3 }, "custom only");
    await store("customHead", "feature", { "custom.queue_depth": 9 }, "custom only");
    const result = ZRestCompareResult.parse(
      (await compare(`?base=${ids.customBase}&head=${ids.customHead}&gate=tolerance`)).body,
    );
    expect(result).toMatchObject({ outcome: "inconclusive", passed: false, metrics: [] });
    expect(result.inconclusiveReasons).toContain("neither side has a metric to compare");
  });

  it("judges against the latest run alone by the tolerance when asked (gate=tolerance, history=1)", async () => {
    const result = ZRestCompareResult.parse(
      (await compare(`?base=branch:main&head=${ids.slower}&gate=tolerance&history=1`)).body,
    );
    expect(result.base.id).toBe(ids.main);
    expect(result.tolerancePct).toBe(5);
    expect(result.regressed).toEqual(["rps"]);
    expect(result.metrics.find((m) => m.key === "rps")).toMatchObject({
      base: 1000,
      head: 900,
      delta: -0.1,
      verdict: "regressed",
    });
    expect(result.metrics.find((m) => m.key === "latency_p99")?.verdict).toBe("unchanged");
    expect(result).toMatchObject({ outcome: "fail", passed: false });
    expect(result.reasons).toEqual([
      "Achieved rate regressed −10.0% against the last 1 run of main (1,000 req/s → 900 req/s): beyond the 5% tolerance",
    ]);
  });

  it("passes within the tolerance, and with a wider one", async () => {
    const same = ZRestCompareResult.parse(
      (await compare(`?base=branch:main&head=${ids.same}&gate=tolerance&history=1`)).body,
    );
    expect(same).toMatchObject({ outcome: "pass", passed: true, regressed: [], reasons: [] });
    const wide = ZRestCompareResult.parse(
      (await compare(`?base=${ids.main}&head=${ids.slower}&tolerance=12.5&gate=tolerance`)).body,
    );
    expect(wide.passed).toBe(true);
    // One run shows no noise: only the tolerance gate judges against it.
    const one = ZRestCompareResult.parse((await compare(`?base=${ids.main}&head=${ids.slower}&tolerance=12.5`)).body);
    expect(one).toMatchObject({ outcome: "inconclusive", passed: false });
    expect(one.inconclusiveReasons).toEqual([
      "one base run shows nothing of its noise: compare against a branch (its last 5 runs), or judge by the tolerance alone (gate=tolerance)",
    ]);
    const chosen = ZRestCompareResult.parse(
      (await compare(`?base=${ids.main}&head=${ids.slower}&metrics=latency_p99,latency_p50&gate=tolerance`)).body,
    );
    expect(chosen.metrics.map((m) => m.key)).toEqual(["latency_p99", "latency_p50"]);
    expect(chosen.passed).toBe(true);
  });

  it("fails the gate on head's failed thresholds", async () => {
    await t.db.project.update({
      where: { id: project.id },
      data: { thresholds: [{ metric: "latency_p99", op: "<", value: 10 }] },
    });
    await store("thresholded", "feature", { rps: 1000, latency_p50: 4, latency_p99: 10.1 });
    await t.db.project.update({ where: { id: project.id }, data: { thresholds: [] } });
    const result = ZRestCompareResult.parse((await compare(`?base=branch:main&head=${ids.thresholded}`)).body);
    expect(result.regressed).toEqual([]);
    expect(result.thresholds.passed).toBe(false);
    // A failed threshold fails the gate even where the baseline could not judge.
    expect(result).toMatchObject({ outcome: "fail", passed: false });
    expect(result.reasons).toEqual(["threshold Latency p99 < 10 ms failed (was 10.1 ms)"]);
  });

  it("explains a missing baseline, a bad query and a head without results", async () => {
    const none = await compare(`?base=branch:release&head=${ids.slower}`);
    expect(none.status).toBe(404);
    expect(errorOf(none)).toEqual({
      message:
        'base: no succeeded, valid run of branch "release" for scenario "checkout" and head\'s config to compare with',
      field: "base",
    });
    const tolerance = await compare(`?base=${ids.main}&head=${ids.slower}&tolerance=lots`);
    expect(tolerance.status).toBe(400);
    expect(errorOf(tolerance)).toMatchObject({ field: "tolerance", message: "tolerance: must be a number (percent)" });
    const noHead = await compare(`?base=${ids.main}`);
    expect(errorOf(noHead).field).toBe("head");
    const queued = ZRestLaunchResult.parse(
      (await launch({ project: project.slug, scenario: "chat 5k", target: "gw" })).body,
    ).run;
    const early = await compare(`?base=${ids.main}&head=${queued.id}`);
    expect(early.status).toBe(409);
    expect(errorOf(early).message).toMatch(/^head: run #\d+ is queued and has no results yet/);
  });
});

describe("GET /api/v1/compare: validity, not measured, statistics over history", () => {
  const store = async (branch: string, metrics: Record<string, number>, scenario: string, result = {}) => {
    const res = await upload(`?project=${second.slug}&scenario=${encodeURIComponent(scenario)}&branch=${branch}`, {
      body: JSON.stringify({ schemaVersion: 1, tool: { name: "custom" }, result: { metrics, ...result } }),
      contentType: "application/json",
    });
    return ZRestUploadResult.parse(res.body).run;
  };

  it("never passes an invalid head unless allowed, and says why in the JSON", async () => {
    const base = await store("main", { rps: 5000, latency_p99: 50 }, "invalid-head");
    const head = await store("feature", { rps: 4990, latency_p99: 50 }, "invalid-head", {
      valid: false,
      invalidReasons: ["5000 req/s not held: 99.9% of sends more than 100 ms late"],
    });
    expect(head).toMatchObject({ valid: false, invalidReasons: [expect.stringMatching(/not held/)] });
    const strict = ZRestCompareResult.parse((await compare(`?base=${base.id}&head=${head.id}`)).body);
    expect(strict).toMatchObject({ passed: false, valid: false, regressed: [] });
    expect(strict.invalidReasons).toEqual(["5000 req/s not held: 99.9% of sends more than 100 ms late"]);
    expect(strict.reasons).toEqual([
      `head run #${head.number} is not a valid measurement: 5000 req/s not held: 99.9% of sends more than 100 ms late`,
    ]);
    const allowed = ZRestCompareResult.parse(
      (await compare(`?base=${base.id}&head=${head.id}&allowInvalid=true&gate=tolerance`)).body,
    );
    expect(allowed).toMatchObject({ outcome: "pass", passed: true, valid: false, reasons: [] });
    // An invalid base judges nothing: inconclusive, even by the tolerance alone.
    const invalidBase = ZRestCompareResult.parse(
      (await compare(`?base=${head.id}&head=${base.id}&gate=tolerance`)).body,
    );
    expect(invalidBase).toMatchObject({ outcome: "inconclusive", passed: false, reasons: [] });
    expect(invalidBase.inconclusiveReasons).toEqual([
      `base run #${head.number} is not a valid measurement: 5000 req/s not held: 99.9% of sends more than 100 ms late`,
    ]);
    const bad = await compare(`?base=${base.id}&head=${head.id}&allowInvalid=maybe`);
    expect(bad.status).toBe(400);
    expect(errorOf(bad)).toMatchObject({ field: "allowInvalid", message: "allowInvalid: must be true or false" });
  });

  it("passes a saturated head on its figures, and shows its reading apart from an invalid one", async () => {
    const limit = "the target is the limit: requests waited for one of the 64 connections (p99 900 ms)";
    const base = await store("main", { rps: 1840, target_rps: 2500, latency_p99: 900 }, "saturated-head");
    const head = await store("feature", { rps: 1850, target_rps: 2500, latency_p99: 890 }, "saturated-head", {
      valid: true,
      saturationReasons: [limit],
    });
    expect(head).toMatchObject({
      valid: true,
      reading: "saturated",
      saturation: "saturated at ~1,850 req/s achieved of 2,500 offered",
      invalidReasons: [],
      saturationReasons: [limit],
    });
    expect(base).toMatchObject({ reading: "valid", saturation: null });
    const judged = ZRestCompareResult.parse((await compare(`?base=${base.id}&head=${head.id}&gate=tolerance`)).body);
    expect(judged).toMatchObject({ outcome: "pass", passed: true, valid: true, reasons: [] });
    expect(judged.head).toMatchObject({
      reading: "saturated",
      saturation: expect.stringMatching(/^saturated at ~1,850/),
    });
  });

  it("reads a threshold on a metric head did not measure as not measured, failing the gate unless allowed", async () => {
    await t.db.project.update({
      where: { id: second.id },
      data: { thresholds: [{ metric: "queue_depth_peak", op: "<", value: 1000 }] },
    });
    const base = await store("main", { throughput: 2000 }, "unmeasured");
    const head = await store("feature", { throughput: 2010 }, "unmeasured");
    await t.db.project.update({ where: { id: second.id }, data: { thresholds: [] } });
    const run = ZRestRun.parse((await getRun(head.id)).body);
    expect(run.thresholds).toMatchObject({
      outcome: "not_measured",
      passed: false,
      verdicts: [{ metric: "queue_depth_peak", status: "not_measured", actual: null, passed: false }],
    });
    const strict = ZRestCompareResult.parse((await compare(`?base=${base.id}&head=${head.id}`)).body);
    expect(strict.reasons).toEqual(["threshold Peak queue depth < 1,000 not measured"]);
    expect(strict.passed).toBe(false);
    const allowed = ZRestCompareResult.parse(
      (await compare(`?base=${base.id}&head=${head.id}&allowNotMeasured=1&gate=tolerance`)).body,
    );
    expect(allowed.passed).toBe(true);
  });

  it("judges head against the last runs of base's branch: beyond the tolerance and the noise", async () => {
    const p99 = [10.0, 10.2, 9.9, 10.1, 9.8, 10.0, 10.3, 9.9, 10.1, 10.0];
    for (const v of p99) await store("main", { latency_p99: v }, "history");
    // +6 %: inside a 10 % tolerance, but far outside what ten runs of ±2 % noise allow.
    const head = await store("feature", { latency_p99: 10.6 }, "history");
    const query = `?base=branch:main&head=${head.id}&metrics=latency_p99&tolerance=10&history=10`;
    const both = ZRestCompareResult.parse((await compare(query)).body);
    const row = both.metrics[0]!;
    expect(row).toMatchObject({ base: 10, verdict: "unchanged" });
    expect(row.noise).toMatchObject({ n: 10, scale: "log" });
    expect(row.noise!.pWorse!).toBeLessThan(0.01);
    expect(both).toMatchObject({ outcome: "pass", passed: true });
    const statistical = ZRestCompareResult.parse((await compare(`${query}&gate=statistical`)).body);
    expect(statistical).toMatchObject({ outcome: "fail", passed: false });
    expect(statistical.reasons[0]).toMatch(
      /^Latency p99 regressed \+6\.0% against the last 10 runs of main \(median 10 ms → 10\.6 ms\): beyond the baseline's noise \(p = 0\.00\d+ < 0\.01\)$/,
    );
    // +12 % is beyond both.
    const slower = await store("feature", { latency_p99: 11.2 }, "history");
    const failed = ZRestCompareResult.parse(
      (await compare(`?base=branch:main&head=${slower.id}&metrics=latency_p99&tolerance=10&history=10`)).body,
    );
    expect(failed).toMatchObject({ outcome: "fail", regressed: ["latency_p99"] });
    const bad = await compare(query.replace("history=10", "history=0"));
    expect(errorOf(bad)).toMatchObject({ field: "history", message: "history: must be at least 1 run" });
  });

  it("reports the change point in head's history: change point at run N, +x %", async () => {
    const runs = [];
    // Deterministic ±3 % noise, then a +15 % step from the 20th run on.
    let seed = 11;
    const noise = () => {
      seed = (seed * 16807) % 2147483647;
      return (seed / 2147483647) * 0.06 - 0.03;
    };
    for (let i = 0; i < 30; i++)
      runs.push(await store("main", { rps: (i < 19 ? 1000 : 1150) * (1 + noise()) }, "steps"));
    const head = runs.at(-1)!;
    const result = ZRestCompareResult.parse((await compare(`?base=${runs[28]!.id}&head=${head.id}&metrics=rps`)).body);
    expect(result.changePoints).toHaveLength(1);
    expect(result.changePoints[0]).toMatchObject({ metric: "rps", runId: runs[19]!.id, runNumber: runs[19]!.number });
    expect(result.changePoints[0]!.change!).toBeGreaterThan(0.12);

    const trend = await trendHandler(
      request("GET", `/trend?project=${second.slug}&scenario=steps&metric=rps`, { token: reader }),
      base,
    );
    expect(trend.status).toBe(200);
    const body = ZRestTrend.parse(trend.body);
    expect(body.points).toHaveLength(30);
    expect(body.changePoints.map((c) => c.runNumber)).toEqual([runs[19]!.number]);
    // Kept to one shard count: these runs all ran on one shard.
    const oneShard = await trendHandler(
      request("GET", `/trend?project=${second.slug}&scenario=steps&metric=rps&shards=1`, { token: reader }),
      base,
    );
    expect(ZRestTrend.parse(oneShard.body).points).toHaveLength(30);
    const twoShards = await trendHandler(
      request("GET", `/trend?project=${second.slug}&scenario=steps&metric=rps&shards=2`, { token: reader }),
      base,
    );
    expect(ZRestTrend.parse(twoShards.body).points).toHaveLength(0);
    const badShards = await trendHandler(
      request("GET", `/trend?project=${second.slug}&scenario=steps&metric=rps&shards=0`, { token: reader }),
      base,
    );
    expect(badShards.status).toBe(400);
    expect(ZRestError.parse(badShards.body).error.message).toBe("shards: must be at least 1");
    const unknown = await trendHandler(
      request("GET", `/trend?project=${second.slug}&scenario=steps&metric=nope`, { token: reader }),
      base,
    );
    expect(errorOf(unknown)).toMatchObject({ field: "metric" });
  });
});

describe("OpenAPI and schemas", () => {
  it("serves a valid OpenAPI 3.1 document describing every route", async () => {
    const res = openApiHandler();
    expect(res.status).toBe(200);
    const doc = res.body as ReturnType<typeof openApiDocument>;
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc) as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
    const paths = doc.paths as Record<string, Record<string, unknown>>;
    expect(Object.keys(paths).sort()).toEqual([
      "/agent/announce",
      "/agent/claim",
      "/agent/queue",
      "/agent/runs/{id}/checkpoint",
      "/agent/runs/{id}/heartbeat",
      "/agent/runs/{id}/progress",
      "/agent/runs/{id}/ready",
      "/agent/runs/{id}/result",
      "/agent/stop",
      "/agents/{name}",
      "/badge/{project}/{scenario}/{metric}.svg",
      "/compare",
      "/notifications/endpoints",
      "/notifications/endpoints/{id}",
      "/notifications/rules",
      "/notifications/rules/{id}",
      "/openapi.json",
      "/projects/{project}/config",
      "/projects/{project}/instance-configs/{name}",
      "/projects/{project}/scenarios/{name}",
      "/projects/{project}/targets/{name}",
      "/projects/{project}/{kind}",
      "/runs",
      "/runs/exec",
      "/runs/launch",
      "/runs/{id}",
      "/runs/{id}/finish",
      "/runs/{id}/progress",
      "/schema/run.json",
      "/trend",
    ]);
    expect(Object.keys(paths["/runs"]!)).toEqual(["post"]);
    // What the server refuses, the document says: reserved record keys, and each kind's own body.
    const finish = JSON.stringify((doc.components as { schemas: Record<string, unknown> }).schemas.ExecFinishInput);
    expect(finish).toContain(
      '"propertyNames":{"type":"string","not":{"enum":["__proto__","constructor","prototype"]}}',
    );
    const putTarget = paths["/projects/{project}/targets/{name}"]!.put as { requestBody: unknown };
    expect(JSON.stringify(putTarget.requestBody)).toContain('"$ref":"#/components/schemas/ConfigTargetBody"');
    expect(JSON.stringify(putTarget.requestBody)).not.toContain("ConfigScenario");
    // The path names the item, so its body has no name (nor room for one).
    const targetBody = (
      doc.components as { schemas: Record<string, { properties?: object; additionalProperties?: unknown }> }
    ).schemas.ConfigTargetBody;
    expect(Object.keys(targetBody?.properties ?? {})).not.toContain("name");
    expect(targetBody?.additionalProperties).toBe(false);
    const components = doc.components as { securitySchemes: unknown; schemas: Record<string, { properties?: object }> };
    expect(components.securitySchemes).toMatchObject({ bearerToken: { type: "http", scheme: "bearer" } });
    expect(Object.keys(components.schemas.UploadEnvelope?.properties ?? {})).toEqual(
      expect.arrayContaining([
        "project",
        "scenario",
        "format",
        "content",
        "run",
        "instanceConfig",
        "branch",
        "commit",
        "ciUrl",
        "tags",
      ]),
    );
  });

  it("serves the native run's JSON Schema", () => {
    const res = runSchemaHandler();
    expect(res.body).toMatchObject({ title: "Benchboard normalized run", type: "object" });
    expect((res.body as { required: string[] }).required).toEqual(expect.arrayContaining(["schemaVersion", "result"]));
  });
});
