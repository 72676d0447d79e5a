import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "./testing";

// The migration that reads old runs limited only by their target as saturated, run again on rows
// written as the engines stored them before saturation had its own reading.
const MIGRATION = path.resolve(
  import.meta.dirname,
  "../../../prisma/migrations/20261129044000_saturated_runs_from_target_reasons/migration.sql",
);

const TARGET_ONLY = [
  "the target is the limit: requests waited for one of the 4 connections (p99 400 ms) because every one was busy with a response; that wait is counted in the latency, as a user would see it",
  "the target did not keep up: completed 80.0 responses/s, below 90% of the 200.0 req/s sent (responses failed or took until 3.2 s after the sending window)",
  "achieved 150.0 req/s, below 99% of the target 200.0 req/s: the target held the connections",
  "12 requests dropped: more than 1400 waiting for a connection",
];
const GENERATOR =
  "the load generator, not the target, was late sending: send lag p99 35 ms against latency p99 102 ms (bound 26 ms); its event loop was held up (CPU 18% of a core): the machine or the process was busy";

let t: TestDatabase;
const ids: Record<string, string> = {};

beforeAll(async () => {
  t = await createTestDatabase();
  const db = t.db;
  const org = await db.organization.create({ data: { name: "Org", slug: "org" } });
  const project = await db.project.create({ data: { orgId: org.id, name: "gw", slug: "gw" } });
  const rows: Record<string, { valid: boolean; invalidReasons: string[]; saturationReasons?: string[] }> = {
    targetOnly: { valid: false, invalidReasons: TARGET_ONLY },
    generatorFirst: { valid: false, invalidReasons: [GENERATOR, TARGET_ONLY[0]!] },
    partial: { valid: false, invalidReasons: ["partial result: checkpoint after 30 s"] },
    valid: { valid: true, invalidReasons: [] },
    alreadySaturated: { valid: true, invalidReasons: [], saturationReasons: [TARGET_ONLY[0]!] },
  };
  let n = 0;
  for (const [name, result] of Object.entries(rows)) {
    const run = await db.run.create({
      data: { orgId: org.id, projectId: project.id, number: ++n, status: "succeeded", shardCount: 1 },
    });
    ids[name] = run.id;
    await db.runResult.create({ data: { runId: run.id, metrics: { rps: 150 }, ...result } });
  }
  await db.$executeRawUnsafe(await readFile(MIGRATION, "utf8"));
});

afterAll(async () => {
  await t?.drop();
});

const read = (name: string) =>
  t.db.runResult.findUniqueOrThrow({
    where: { runId: ids[name]! },
    select: { valid: true, invalidReasons: true, saturationReasons: true },
  });

describe("old runs the target limited", () => {
  it("read saturated: valid, with their reasons as saturation reasons", async () => {
    expect(await read("targetOnly")).toEqual({ valid: true, invalidReasons: [], saturationReasons: TARGET_ONLY });
  });

  it("stay invalid with any reason of another kind, and nothing else changes", async () => {
    expect(await read("generatorFirst")).toEqual({
      valid: false,
      invalidReasons: [GENERATOR, TARGET_ONLY[0]],
      saturationReasons: [],
    });
    expect((await read("partial")).valid).toBe(false);
    expect(await read("valid")).toEqual({ valid: true, invalidReasons: [], saturationReasons: [] });
    expect(await read("alreadySaturated")).toEqual({
      valid: true,
      invalidReasons: [],
      saturationReasons: [TARGET_ONLY[0]],
    });
  });
});
