import { randomBytes } from "node:crypto";
import { createApiToken, createProject } from "@benchboard/db";
import { allowLoopbackTargets, createTestDatabase, type TestDatabase } from "@benchboard/db/testing";
import { createRunsQueue, DEFAULT_REDIS_URL } from "@benchboard/jobs";
import type { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedisRateLimiter } from "../rate-limit";
import type { RestDeps } from "./auth";
import { getConfigHandler, putConfigHandler } from "./config";
import type { RestResponse } from "./http";

// benchboard.yml keeps a capacity-search scenario like any other: applied, exported as written,
// unchanged when applied again, and refused with the field named when its range is no range.

let t: TestDatabase;
let queue: Queue;
let redis: Redis;
let deps: RestDeps;
let token = "";
let slug = "";
const prefix = `bbcfgcap-${randomBytes(4).toString("hex")}`;

beforeAll(async () => {
  t = await createTestDatabase();
  await allowLoopbackTargets(t.db);
  queue = createRunsQueue(process.env.REDIS_URL ?? DEFAULT_REDIS_URL, prefix);
  redis = new Redis(process.env.REDIS_URL ?? DEFAULT_REDIS_URL);
  deps = { db: t.db, queue, rateLimit: createRedisRateLimiter(redis, `${prefix}:`) };
  const org = await t.db.organization.create({ data: { name: "Acme", slug: "acme" } });
  slug = (await createProject(t.db, org.id, { name: "Checkout API" })).slug;
  ({ token } = await createApiToken(t.db, org.id, {
    name: "config",
    scopes: ["config:read", "config:write"],
    createdById: null,
  }));
});

afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
  await queue.obliterate({ force: true }).catch(() => {});
  await queue.close();
  await t.drop();
});

const request = (method: string, body?: unknown) =>
  new Request(`http://bench.test/api/v1/projects/${slug}/config`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const put = (doc: unknown) => putConfigHandler(request("PUT", doc), deps, slug);
const get = () => getConfigHandler(request("GET"), deps, slug);
const bodyOf = (res: RestResponse) =>
  res.body as Record<string, unknown> & { error?: { message: string; field?: string } };

const SEARCH = {
  engine: "capacity-search",
  request: { method: "GET", path: "/checkout", headers: {} },
  slo: { p99Ms: 200, errorRatePct: 0.5 },
  minRate: 50,
  maxRate: 800,
  stepFactor: 2,
  resolutionPct: 5,
  plateauS: 10,
  warmupS: 2,
  maxConnections: 500,
  timeoutMs: 10_000,
};

describe("a capacity-search scenario in benchboard.yml", () => {
  it("applies, exports as written, and is unchanged the second time", async () => {
    const doc = { version: 1, scenarios: [{ name: "checkout capacity", spec: SEARCH }] };
    const first = await put(doc);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(bodyOf(first).changes).toEqual([{ kind: "scenario", name: "checkout capacity", action: "create" }]);
    const exported = bodyOf(await get()).scenarios as { name: string; spec: unknown }[];
    expect(exported).toEqual([{ name: "checkout capacity", spec: SEARCH }]);
    expect(bodyOf(await put(doc))).toMatchObject({ changed: 0 });
  });

  it("refuses a minimum above the maximum, or no SLO, naming the field", async () => {
    const inverted = await put({
      version: 1,
      scenarios: [{ name: "inverted", spec: { ...SEARCH, minRate: 900 } }],
    });
    expect(inverted.status).toBe(400);
    expect(bodyOf(inverted).error!.field).toBe("scenarios.0.spec.minRate");
    expect(bodyOf(inverted).error!.message).toContain("minRate (900) is above maxRate (800)");
    const { slo: _slo, ...noSlo } = SEARCH;
    const missing = await put({ version: 1, scenarios: [{ name: "no slo", spec: noSlo }] });
    expect(missing.status).toBe(400);
    expect(bodyOf(missing).error!.field).toBe("scenarios.0.spec.slo");
    const names = (bodyOf(await get()).scenarios as { name: string }[]).map((s) => s.name);
    expect(names).toEqual(["checkout capacity"]);
  });
});
