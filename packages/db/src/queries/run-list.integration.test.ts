import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunStatus } from "../generated/prisma/enums";
import { createTestDatabase, type TestDatabase } from "../testing";
import { type ListRunsParams, listRuns } from "./run";

// The run list against real PostgreSQL: every filter, the search, the four sorts, and keyset
// pages that add up to exactly the full sorted list.
let t: TestDatabase;
let orgId: string;
let otherOrgId: string;
const projects: Record<string, string> = {};
const targets: Record<string, string> = {};

interface Seed {
  project: "gw" | "chat";
  status: RunStatus;
  branch?: string;
  tags?: string[];
  notes?: string;
  scenarioName: string;
  rps?: number;
  p99?: number;
  day: number;
}

const seeds: Seed[] = [
  {
    project: "gw",
    status: "succeeded",
    branch: "main",
    tags: ["nightly"],
    scenarioName: "5k rps",
    rps: 4_990,
    p99: 12,
    day: 1,
  },
  {
    project: "gw",
    status: "succeeded",
    branch: "main",
    tags: ["nightly", "t3"],
    scenarioName: "5k rps",
    rps: 4_950,
    p99: 30,
    day: 2,
  },
  { project: "gw", status: "failed", branch: "feat/pool", tags: ["pool"], scenarioName: "5k rps", day: 3 },
  {
    project: "gw",
    status: "succeeded",
    branch: "feat/pool",
    scenarioName: "closed 100",
    rps: 1_200,
    p99: 8,
    day: 4,
    notes: "pool 10000 looks better",
  },
  {
    project: "chat",
    status: "succeeded",
    tags: ["tuning"],
    scenarioName: "50 users",
    rps: 2_312,
    p99: 150_687,
    day: 5,
  },
  { project: "chat", status: "canceled", tags: ["tuning"], scenarioName: "50 users", rps: 800, day: 6 },
  { project: "chat", status: "running", scenarioName: "100% load", day: 7 },
  // Same rps as the first run: ties must page by id without losing or repeating a run.
  { project: "chat", status: "succeeded", tags: ["tuning"], scenarioName: "50 users", rps: 4_990, p99: 99, day: 8 },
];
const ids: string[] = [];

beforeAll(async () => {
  t = await createTestDatabase();
  const db = t.db;
  const org = await db.organization.create({ data: { name: "Org", slug: "org" } });
  const other = await db.organization.create({ data: { name: "Other", slug: "other" } });
  orgId = org.id;
  otherOrgId = other.id;
  for (const name of ["gw", "chat"] as const) {
    const p = await db.project.create({ data: { orgId, name, slug: name } });
    projects[name] = p.id;
    const target = await db.target.create({
      data: { orgId, projectId: p.id, name: `${name}-svc`, kind: "http", baseUrl: "http://127.0.0.1:1" },
    });
    targets[name] = target.id;
  }
  let n = 0;
  for (const s of seeds) {
    const run = await db.run.create({
      data: {
        orgId,
        projectId: projects[s.project]!,
        targetId: targets[s.project]!,
        number: ++n,
        status: s.status,
        branch: s.branch ?? null,
        tags: s.tags ?? [],
        notes: s.notes ?? "",
        scenarioName: s.scenarioName,
        createdAt: new Date(Date.UTC(2026, 10, s.day, 12)),
      },
    });
    ids.push(run.id);
    if (s.rps !== undefined) {
      const metrics: Record<string, number> = { rps: s.rps };
      if (s.p99 !== undefined) metrics.latency_p99 = s.p99;
      await db.runResult.create({ data: { runId: run.id, metrics } });
    }
  }
  // A run of another organization with a matching name must never show.
  const p = await db.project.create({ data: { orgId: otherOrgId, name: "gw", slug: "gw" } });
  await db.run.create({ data: { orgId: otherOrgId, projectId: p.id, number: 1, scenarioName: "5k rps" } });
});

afterAll(async () => {
  await t?.drop();
});

const numbers = async (params: ListRunsParams) =>
  (await listRuns(t.db, orgId, params)).items.map((r) => ids.indexOf(r.id) + 1);

/** Walk every page of a listing and return the run numbers in order. */
async function allPages(params: ListRunsParams, limit: number) {
  const seen: number[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 20; page++) {
    const res = await listRuns(t.db, orgId, { ...params, limit, cursor });
    seen.push(...res.items.map((r) => ids.indexOf(r.id) + 1));
    if (!res.nextCursor) return seen;
    cursor = res.nextCursor;
  }
  throw new Error("pagination did not end");
}

describe("listRuns", () => {
  it("lists newest first within the organization", async () => {
    expect(await numbers({})).toEqual([8, 7, 6, 5, 4, 3, 2, 1]);
    expect(await numbers({ sort: "oldest" })).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it("filters by project, target, status, branch, tag and date range", async () => {
    expect(await numbers({ projectId: projects.chat })).toEqual([8, 7, 6, 5]);
    expect(await numbers({ targetId: targets.gw })).toEqual([4, 3, 2, 1]);
    expect(await numbers({ status: "succeeded" })).toEqual([8, 5, 4, 2, 1]);
    expect(await numbers({ status: ["failed", "canceled"] })).toEqual([6, 3]);
    expect(await numbers({ branch: "feat/pool" })).toEqual([4, 3]);
    expect(await numbers({ tag: "nightly" })).toEqual([2, 1]);
    expect(await numbers({ tag: "night" })).toEqual([]);
    expect(await numbers({ from: new Date(Date.UTC(2026, 10, 2)), to: new Date(Date.UTC(2026, 10, 4)) })).toEqual([
      3, 2,
    ]);
    expect(await numbers({ projectId: projects.gw, status: "succeeded", tag: "t3" })).toEqual([2]);
  });

  it("searches scenario names, notes and tags, case-insensitively and literally", async () => {
    expect(await numbers({ search: "USERS" })).toEqual([8, 6, 5]);
    expect(await numbers({ search: "pool 10000" })).toEqual([4]);
    expect(await numbers({ search: "T3" })).toEqual([2]);
    // % and _ are characters to find, not wildcards.
    expect(await numbers({ search: "100%" })).toEqual([7]);
    expect(await numbers({ search: "%" })).toEqual([7]);
    expect(await numbers({ search: "_" })).toEqual([]);
  });

  it("sorts by achieved rate (highest first) and p99 (lowest first), runs without the metric last", async () => {
    const byRps = await numbers({ sort: "rps" });
    expect(byRps.slice(0, 2).sort()).toEqual([1, 8]);
    expect(byRps.slice(2)).toEqual([2, 5, 4, 6, 7, 3]);
    expect(await numbers({ sort: "p99" })).toEqual([4, 1, 2, 8, 5, 7, 6, 3]);
  });

  it.each(["newest", "oldest", "rps", "p99"] as const)("pages %s by keyset to exactly the full list", async (sort) => {
    const full = await numbers({ sort });
    for (const limit of [1, 2, 3]) expect(await allPages({ sort }, limit)).toEqual(full);
    expect(await allPages({ sort, projectId: projects.chat }, 1)).toEqual(
      await numbers({ sort, projectId: projects.chat }),
    );
  });

  it("refuses a cursor it did not make, naming the field", async () => {
    await expect(listRuns(t.db, orgId, { cursor: "garbage" })).rejects.toMatchObject({ field: "cursor" });
  });

  it("returns what the list shows: names, metrics, group", async () => {
    const [first] = (await listRuns(t.db, orgId, { sort: "oldest", limit: 1 })).items;
    expect(first).toMatchObject({
      number: 1,
      project: { name: "gw" },
      target: { name: "gw-svc" },
      result: { metrics: { rps: 4_990, latency_p99: 12 } },
      tags: ["nightly"],
    });
  });

  it("labels each run by what it really ran, and a sweep's runs by their value", async () => {
    const db = t.db;
    const sweep = await db.sweep.create({
      data: { orgId, projectId: projects.gw!, name: "buffers", parameter: "knobs.buffer_size", values: [1000, 20000] },
    });
    const make = (number: number, scenarioSnapshot: object, configSnapshot: object | null, sweepValue?: number) =>
      db.run.create({
        data: {
          orgId,
          projectId: projects.gw!,
          number,
          status: "succeeded",
          scenarioName: "300 req/s non-streaming, 20 s",
          scenarioSnapshot,
          ...(configSnapshot ? { configSnapshot } : {}),
          ...(sweepValue !== undefined ? { sweepId: sweep.id, sweepValue, groupIndex: 0 } : {}),
          createdAt: new Date(Date.UTC(2026, 10, 20, number)),
        },
      });
    const llm = { engine: "llm", spec: { engine: "llm", rate: 500, durationS: 15, stream: false } };
    const medium = await make(101, llm, { name: "gw medium", instanceType: "t3.medium" });
    const xlarge = await make(102, llm, { name: "gw xlarge", instanceType: "t3.xlarge" });
    const swept = await make(103, llm, null, 20000);
    const { items } = await listRuns(db, orgId, { search: "non-streaming", limit: 10 });
    const byId = new Map(items.map((r) => [r.id, r]));
    expect(byId.get(medium.id)).toMatchObject({
      label: "500 req/s · non-streaming · 15 s · t3.medium",
      sweepLabel: null,
    });
    expect(byId.get(xlarge.id)).toMatchObject({ label: "500 req/s · non-streaming · 15 s · t3.xlarge" });
    expect(byId.get(swept.id)).toMatchObject({ sweepLabel: "buffer_size = 20000" });
    // The snapshots themselves are not part of the list.
    expect(Object.keys(byId.get(medium.id)!)).not.toContain("scenarioSnapshot");
  });
});
