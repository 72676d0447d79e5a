import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../testing";
import { generatorCapacity } from "./run-detail";

// What one worker drives, read from real stored runs: only this organization's valid, launched,
// succeeded runs of the engine, each run's rate per shard over its generator's CPU.
let t: TestDatabase;
let orgId: string;

beforeAll(async () => {
  t = await createTestDatabase();
  const db = t.db;
  const org = await db.organization.create({ data: { name: "Org", slug: "org" } });
  const other = await db.organization.create({ data: { name: "Other", slug: "other" } });
  orgId = org.id;
  let number = 0;
  const run = async (o: {
    org: string;
    engine: string;
    rps: number;
    cpu?: number;
    shards?: number;
    valid?: boolean;
    status?: "succeeded" | "failed";
  }) => {
    const project = await db.project.upsert({
      where: { orgId_slug: { orgId: o.org, slug: "p" } },
      create: { orgId: o.org, name: "P", slug: "p" },
      update: {},
    });
    await db.run.create({
      data: {
        orgId: o.org,
        projectId: project.id,
        number: ++number,
        status: o.status ?? "succeeded",
        shardCount: o.shards ?? 1,
        scenarioSnapshot: { name: "s", spec: { engine: o.engine, rate: o.rps } },
        result: {
          create: {
            metrics: { rps: o.rps, ...(o.cpu !== undefined ? { generator_cpu: o.cpu } : {}) },
            valid: o.valid ?? true,
            invalidReasons: o.valid === false ? ["the load generator, not the target, was late sending"] : [],
          },
        },
      },
    });
  };
  await run({ org: org.id, engine: "http-open", rps: 4_000, cpu: 0.4 }); // 10,000 per core
  await run({ org: org.id, engine: "http-open", rps: 8_000, cpu: 0.4, shards: 2 }); // 10,000 per core
  await run({ org: org.id, engine: "http-open", rps: 3_000, cpu: 0.2 }); // 15,000 per core
  // Left out: invalid, failed, another engine, another organization, no generator figures.
  await run({ org: org.id, engine: "http-open", rps: 9_000, cpu: 0.1, valid: false });
  await run({ org: org.id, engine: "http-open", rps: 9_000, cpu: 0.1, status: "failed" });
  await run({ org: org.id, engine: "llm", rps: 100, cpu: 0.5 });
  await run({ org: other.id, engine: "http-open", rps: 90_000, cpu: 0.1 });
  await run({ org: org.id, engine: "http-open", rps: 50 });
});

afterAll(async () => {
  await t?.drop();
});

describe("generatorCapacity", () => {
  it("reads the median rate per core of this organization's valid runs of the engine, with headroom", async () => {
    const capacity = await generatorCapacity(t.db, orgId, "http-open");
    expect(capacity).toEqual({ ratePerWorker: 6_000, basis: "measured on 3 recent runs of this engine" });
    const llm = await generatorCapacity(t.db, orgId, "llm");
    expect(llm?.ratePerWorker).toBe(120);
  });
});
