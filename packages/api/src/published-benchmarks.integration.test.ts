import { randomBytes } from "node:crypto";
import { publishedTallyText, tallyPublishedChecks } from "@benchboard/core";
import { DEMO_ORG_SLUG, seedPublishedDemo } from "@benchboard/db/seed";
import { PUBLISHED_PROJECTS, PUBLISHED_RUNS, PUBLISHED_TABLES } from "@benchboard/db/seed/published/index";
import { createTestDatabase, type TestDatabase } from "@benchboard/db/testing";
import { createRunsQueue, DEFAULT_REDIS_URL } from "@benchboard/jobs";
import type { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCaller } from "./root";
import { createMailbox, signUpForSession } from "./testing/mailbox";
import { sessionContext } from "./testing/org-fixture";

// The published benchmarks as a reader of the demo organization sees them, through the same
// procedures the pages call: which checks count, the documents' dates, and the runs lists' rates.
let t: TestDatabase;
let queue: Queue;
let demoId: string;
let reader: ReturnType<typeof createCaller>;
const mailbox = createMailbox();

beforeAll(async () => {
  t = await createTestDatabase();
  queue = createRunsQueue(process.env.REDIS_URL ?? DEFAULT_REDIS_URL, `bbpub-${randomBytes(4).toString("hex")}`);
  const token = await signUpForSession({ db: t.db, queue }, mailbox, {
    email: "reader@example.test",
    password: "reader password 1",
  });
  demoId = (await seedPublishedDemo(t.db)).orgId;
  reader = createCaller(await sessionContext({ db: t.db, queue }, token, DEMO_ORG_SLUG));
});

afterAll(async () => {
  await queue?.obliterate({ force: true }).catch(() => {});
  await queue?.close();
  await t?.drop();
});

async function tableChecks(title: string) {
  const table = PUBLISHED_TABLES.find((tb) => tb.title === title)!;
  if (table.kind === "comparison") {
    const saved = await t.db.comparison.findFirstOrThrow({ where: { orgId: demoId, title } });
    return (await reader.comparison.byId({ id: saved.id })).view.published!;
  }
  const saved = await t.db.sweep.findFirstOrThrow({ where: { orgId: demoId, name: title } });
  return (await reader.sweep.byId({ id: saved.id })).published!;
}

describe("published benchmarks, as the pages read them", () => {
  it("count only figures Benchboard computed; copied ones read as published", async () => {
    const scaling = PUBLISHED_TABLES.find((tb) => tb.key === "chat-scaling-final")!;
    const view = await tableChecks(scaling.title);
    expect(view.checks).toHaveLength(41);
    // Before: "41 figures: 41 agree", pool sizes and runtimes compared with themselves.
    expect(publishedTallyText(tallyPublishedChecks(view.checks))).toBe(
      "11 figures computed: 11 agree; 30 carried as published",
    );
    const poolSizes = view.checks.filter((c) => c.figure.kind === "config");
    expect(poolSizes.length).toBeGreaterThan(0);
    expect(new Set(poolSizes.map((c) => c.status))).toEqual(new Set(["carried"]));
    // Throughput (messages over runtime) and the deltas between runs are computed and counted.
    const computed = view.checks.filter((c) => c.status !== "carried");
    expect(new Set(computed.map((c) => (c.figure.kind === "value" ? c.figure.metric : c.figure.kind)))).toEqual(
      new Set(["throughput", "delta"]),
    );

    let carried = 0;
    let counted = 0;
    for (const table of PUBLISHED_TABLES) {
      const tally = tallyPublishedChecks((await tableChecks(table.title)).checks);
      carried += tally.carried;
      counted += tally.computed;
    }
    expect({ carried, counted }).toEqual({ carried: 154, counted: 86 });
  });

  it("carry each document's date, or none where it states none", async () => {
    const shuttle = PUBLISHED_TABLES.find((tb) => tb.key === "shuttle-heavy")!;
    expect((await tableChecks(shuttle.title)).reference.date).toBe("2024-02-15");
    const chat = PUBLISHED_TABLES.find((tb) => tb.key === "chat-scaling-final")!;
    expect((await tableChecks(chat.title)).reference.date).toBeUndefined();
    const run = await t.db.run.findFirstOrThrow({ where: { orgId: demoId, project: { slug: "example-apps" } } });
    const view = await reader.run.view({ id: run.id });
    expect(view.published!.reference.date).toBe("2024-02-15");
  });

  it("list an achieved rate and p99 for every published run that has them", async () => {
    const { items } = await reader.run.list({ limit: 200 });
    expect(items).toHaveLength(PUBLISHED_RUNS.length);
    const projects = await t.db.project.findMany({ where: { orgId: demoId }, select: { id: true, slug: true } });
    const projectId = (key: string) =>
      projects.find((p) => p.slug === PUBLISHED_PROJECTS.find((pp) => pp.key === key)!.slug)!.id;
    for (const seed of PUBLISHED_RUNS) {
      const row = items.find((r) => r.projectId === projectId(seed.project) && r.number === seed.number)!;
      expect(row, seed.key).toBeDefined();
      const m = seed.metrics;
      const rate = m.rps ? "rps" : m.messages && m.runtime_ms ? "throughput" : null;
      expect(row.result?.rate?.metric ?? null, seed.key).toBe(rate);
      if (rate === "rps") expect(row.result!.rate!.value, seed.key).toBe(m.rps!.value);
      if (rate === "throughput") {
        expect(row.result!.rate!.value, seed.key).toBeCloseTo(m.messages!.value / (m.runtime_ms!.value / 1000), 6);
      }
      expect(row.result?.metrics.latency_p99, seed.key).toBe(m.latency_p99?.value);
    }
    const withRate = items.filter((r) => r.result?.rate).length;
    const withP99 = items.filter((r) => r.result?.metrics.latency_p99 !== undefined).length;
    // Only the Bifrost pages (an offered rate, no percentiles) and chat Run 2 (queue depth alone)
    // published no achieved rate; the chat runs' rate is their messages over their runtime.
    expect({ withRate, withP99 }).toEqual({ withRate: 38, withP99: 37 });
  });
});
