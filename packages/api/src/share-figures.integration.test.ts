import { randomBytes } from "node:crypto";
import { ensureLocalOrganization } from "@benchboard/db";
import { createTestDatabase, type TestDatabase } from "@benchboard/db/testing";
import { createRunsQueue, DEFAULT_REDIS_URL } from "@benchboard/jobs";
import type { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCaller } from "./root";
import { uploadGatewayRun } from "./testing/gateway-run";
import type { Context } from "./trpc";

// A share link without target details shows the signed-in figures: every metric and stage under
// its own name and unit, every config field by name. Only addresses and text that can name a
// host are hidden, and they say so. Real PostgreSQL and Redis.
let t: TestDatabase;
let queue: Queue;
const prefix = `bbtest-${randomBytes(4).toString("hex")}`;
let orgId: string;
let userId: string;
let projectId: string;
const runs: string[] = [];

const owner = () => createCaller({ db: t.db, queue, orgId, userId, role: "owner" } satisfies Context);
const anonymous = () => createCaller({ db: t.db, queue, orgId: null, userId: null, role: null });

/** A gateway run with a server-timing breakdown (ms) on a config whose knobs include a host. */
function upload(stagesMs: { db: number; queue: number; render: number }, bufferSize: number) {
  return uploadGatewayRun(t.db, orgId, projectId, {
    stagesMs,
    bufferSize,
    knobs: { "upstream.pool": 8, upstream: "redis-master.corp.internal" },
    stageCounts: true,
  });
}

beforeAll(async () => {
  t = await createTestDatabase();
  queue = createRunsQueue(process.env.REDIS_URL ?? DEFAULT_REDIS_URL, prefix);
  orgId = (await ensureLocalOrganization(t.db)).id;
  userId = (await t.db.user.create({ data: { email: "sharer@example.com" } })).id;
  projectId = (await t.db.project.create({ data: { orgId, name: "Gateway", slug: "gateway" } })).id;
  runs.push(await upload({ db: 10.33, queue: 0.0233, render: 0.0218 }, 10_000));
  runs.push(await upload({ db: 12.1, queue: 0.0301, render: 0.0275 }, 20_000));
});

afterAll(async () => {
  await queue?.obliterate({ force: true }).catch(() => {});
  await queue?.close();
  await t?.drop();
});

const ADDRESS = /corp\.internal|redis-master|8080/;

describe("a shared comparison shows the signed-in figures", () => {
  it("keeps every metric and stage by its key, label and value, and every config field by name", async () => {
    const saved = await owner().comparison.create({ title: "pool sizes", runIds: runs, baselineRunId: runs[0]! });
    const signedIn = (await owner().comparison.byId({ id: saved.id })).view;
    const link = await owner().share.create({ comparisonId: saved.id });
    const shared = await anonymous().share.view({ token: link.token });
    if (shared.kind !== "comparison") throw new Error(`expected a comparison, got ${shared.kind}`);
    const view = shared.comparison.view;

    // Every row: same key, label, unit and the same figure in every cell.
    expect(view.table.map((r) => [r.key, r.label, r.unit])).toEqual(
      signedIn.table.map((r) => [r.key, r.label, r.unit]),
    );
    expect(view.table.map((r) => r.cells)).toEqual(signedIn.table.map((r) => r.cells));
    expect(view.stageKeys).toEqual(["stage.db", "stage.queue", "stage.render"]);
    expect(view.stageKeys).toEqual(signedIn.stageKeys);
    const stage = (v: typeof view, key: string) => v.table.find((r) => r.key === key)!;
    expect(stage(view, "stage.db").cells[0]!.value).toBe(10.33);
    expect(stage(view, "stage.queue").cells[0]!.value).toBe(0.0233);
    expect(stage(view, "stage.render").label).toBe("Stage: Render");
    expect(stage(view, "stage.db").unit).toBe("ms");

    // The config differences: the same fields by name; numbers as they are, text knobs hidden.
    expect(view.configDiff.map((d) => d.path)).toEqual(signedIn.configDiff.map((d) => d.path));
    expect(view.configDiff.find((d) => d.path === "config.knobs.buffer_size")?.values).toEqual(["10000", "20000"]);
    expect(view.runs.map((r) => r.label)).toEqual(signedIn.runs.map((r) => r.label));
    expect(view.runs.map((r) => r.configName)).toEqual(signedIn.runs.map((r) => r.configName));
    expect(JSON.stringify(shared)).not.toMatch(ADDRESS);
  });
});

describe("a shared run shows the signed-in figures", () => {
  it("keeps metrics, stages and config fields, and says the config hook's report is hidden, not missing", async () => {
    await t.db.run.update({
      where: { id: runs[0]! },
      data: { source: "launched", serverConfig: { buffer_size: 10_000, upstream: "redis-master.corp.internal" } },
    });
    const signedIn = await owner().run.view({ id: runs[0]! });
    const link = await owner().share.create({ runId: runs[0]! });
    const shared = await anonymous().share.view({ token: link.token });
    if (shared.kind !== "run") throw new Error(`expected a run, got ${shared.kind}`);
    const view = shared.run;

    expect(view.result!.metrics).toEqual(signedIn.result!.metrics);
    expect(view.result!.stages).toEqual(signedIn.result!.stages);
    expect(view.result!.derivedKeys).toEqual(signedIn.result!.derivedKeys);
    expect(view.overheadStages).toEqual(signedIn.overheadStages);
    expect(view.config).toMatchObject({ name: "gateway-large", instanceType: "t3.xlarge", vcpu: 4 });
    expect(view.config!.knobs).toEqual({ buffer_size: 10_000, "upstream.pool": 8, upstream: "[hidden]" });
    // The hook reported: its numeric fields are shown, its text hidden; never "no config hook".
    expect(view.serverConfig).toEqual({ buffer_size: 10_000, upstream: "[hidden]" });
    // The address is not dropped silently: the page says it is hidden.
    expect(view.target).toMatchObject({ name: "gateway", baseUrl: "[address hidden]" });
    expect(JSON.stringify(shared)).not.toMatch(ADDRESS);
  });
});
