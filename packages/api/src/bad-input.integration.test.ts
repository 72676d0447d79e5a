import { randomBytes } from "node:crypto";
import type { Db } from "@benchboard/db";
import { allowLoopbackTargets, createTestDatabase, type TestDatabase } from "@benchboard/db/testing";
import { createRunsQueue, DEFAULT_REDIS_URL } from "@benchboard/jobs";
import type { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { appRouter } from "./root";
import { createOrgFixture, idsIn, type OrgFixture, sessionContext, snapshotOrg } from "./testing/org-fixture";
import { type Build, callProcedure, INPUTS, type Outcome } from "./testing/procedure-inputs";

// Bad input for every form and upload procedure (every mutation with input), generated from
// each procedure's input schema: every field, at any depth, gets a value of the wrong type; text
// fields get 2 MB of text (alone and after a valid value), emoji / right-to-left / combining
// marks, and SQL and HTML; lists and maps get 10,000 entries. The answer must be an error naming the field with nothing stored
// changed, or, for text, the value stored exactly as sent.

/** Mutations covered by their own tests of bad input, and where. */
const COVERED_ELSEWHERE: Record<string, string> = {
  "auth.signUp": "auth.integration.test.ts: refuses bad input at the field; unicode and markup names round-trip",
  "auth.signIn": "auth.integration.test.ts: one answer for any wrong credentials, by design naming no field",
  "execRun.finish":
    "rest/config-exec.integration.test.ts: ends its run once (a second finish is a conflict); the result is checked like an upload's",
};

/** Text fields (by procedure, or procedure and field) whose accepted value is deliberately not stored as sent. */
const NOT_STORED: Record<string, string> = {
  "target.testMonitors": "reads monitors now; nothing is saved",
  "auth.resetPassword password": "a secret: stored as a scrypt hash, never as sent",
  "scenario.importDrill": "returns the converted plan; nothing is saved until the scenario is",
  "target.create headers.0.from": "the header's earlier name, to find its stored secret",
  "target.update headers.0.from": "the header's earlier name, to find its stored secret",
  "target.create monitors.0.id": "a stored monitor's id, to keep its password; new monitors get their own",
  "target.create monitors.0.password": "a secret: stored encrypted, never as sent",
  "upload.run provider": "chooses which provider's run of a bifrost-benchmarking file is stored",
};

/** Lists that may legitimately hold 10,000 entries, and why. */
const LONG_LISTS_OK: Record<string, string> = {
  "scenario.create spec.plan.0.withItems": "drill's with_items_range expands to up to 100,000 items",
};

/**
 * Fuller inputs than the authorization matrix needs, so that optional fields, list elements and
 * nested objects exist to be spoiled.
 */
const RICH_INPUTS: Record<string, Build> = {
  // The pending invitation of the fixture, not a fresh one per build: building must store nothing.
  "auth.acceptInvitation": (f) => ({ token: f.invitation.token }),
  "target.create": (f) => ({
    projectId: f.project.id,
    name: `api-${randomBytes(4).toString("hex")}`,
    kind: "http",
    baseUrl: "http://127.0.0.1:9",
    headers: [{ name: "x-team", value: "perf" }],
    monitors: [
      {
        config: {
          kind: "prometheus",
          url: "http://127.0.0.1:9/metrics",
          gauges: [{ name: "queue_depth", metric: "gateway_queue_depth", labels: { queue: "main" } }],
        },
      },
      {
        config: { kind: "rabbitmq", url: "http://127.0.0.1:15672", queues: ["chat"], username: "guest" },
        password: "guest",
      },
    ],
    configApplyUrl: "http://127.0.0.1:9/admin/config",
  }),
  "target.update": (f) => ({
    id: f.target.id,
    name: "api",
    kind: "http",
    baseUrl: "http://127.0.0.1:9",
    headers: [{ name: "x-team", value: "perf" }],
    configApplyUrl: "http://127.0.0.1:9/admin/config",
  }),
  "target.testMonitors": (f) => ({
    targetId: f.target.id,
    monitors: [{ config: { kind: "process", port: 9 } }],
  }),
  "instanceConfig.create": (f) => ({
    projectId: f.project.id,
    name: `large-${randomBytes(4).toString("hex")}`,
    instanceType: "c6i.2xlarge",
    vcpu: 8,
    memoryMb: 16_384,
    cpuLimit: 4,
    replicas: 2,
    knobs: { pool: 16, mode: "fast", drop: true },
  }),
  "scenario.create": (f) => ({
    projectId: f.project.id,
    name: `checkout-${randomBytes(4).toString("hex")}`,
    description: "two steps",
    spec: {
      engine: "http-closed",
      concurrency: 4,
      requests: 100,
      request: { method: "POST", path: "/cart", headers: { "x-user": "1" }, body: "{}" },
      plan: [
        {
          name: "add",
          request: { method: "POST", path: "/cart", headers: { "x-user": "1" }, body: "{}" },
          withItems: ["a"],
          set: { user: "1" },
          asserts: [{ key: "status", value: 200 }],
        },
      ],
      variables: { base: "x" },
    },
    thresholds: [{ metric: "rps", op: ">=", value: 10 }],
  }),
  "run.launch": (f) => ({
    targetId: f.target.id,
    scenarioId: f.scenario.id,
    instanceConfigId: f.instanceConfig.id,
    tags: ["nightly"],
    notes: "launched",
    repetitions: 1,
  }),
  "run.update": (f) => ({ id: f.runs[0].id, notes: "n", tags: ["t"], excluded: true, excludedReason: "noisy" }),
  "upload.run": (f) => ({
    project: f.project.slug,
    scenario: "imported",
    format: "native",
    content: JSON.stringify({ schemaVersion: 1, tool: { name: "custom" }, result: { metrics: { rps: 900 } } }),
    instanceConfig: { instanceType: "c6i.large", vcpu: 2, knobs: { pool: 8 } },
    branch: "main",
    commit: "abc1234",
    ciUrl: "https://ci.example.test/1",
    tags: ["ci"],
    notes: "from CI",
  }),
  "comparison.create": (f) => ({
    title: "again",
    runIds: [f.runs[0].id, f.runs[1].id],
    // Not the first run: spoiling runIds.0 must be reported at runIds, not as a missing baseline.
    baselineRunId: f.runs[1].id,
    notes: "why",
  }),
  "comparison.update": (f) => ({ id: f.comparison.id, title: "renamed", notes: "n" }),
  "apiToken.create": (f) => ({ name: "deploy", projectId: f.project.id, scopes: ["runs:read"], expiresInDays: 30 }),
  "org.update": () => ({ name: "Renamed org" }),
};

// ---- the input schema, field by field ----

interface ZodDef {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  options?: z.ZodType[];
  element?: z.ZodType;
  keyType?: z.ZodType;
  valueType?: z.ZodType;
}
const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: ZodDef } })._zod.def;

const WRAPPERS = new Set(["optional", "nullable", "default", "prefault", "nonoptional", "readonly", "catch"]);

/** The schemas a value may be checked against once wrappers, pipes and unions are looked through. */
function shapesOf(schema: z.ZodType, value: unknown): z.ZodType[] {
  const def = defOf(schema);
  if (WRAPPERS.has(def.type)) return shapesOf(def.innerType!, value);
  if (def.type === "pipe") return def.in && defOf(def.in).type !== "transform" ? shapesOf(def.in, value) : [];
  if (def.type === "union") {
    const options = def.options!;
    // The option the valid value takes (a discriminated union's branch); every option without one.
    const taken = options.find((o) => value !== undefined && o.safeParse(value).success);
    return taken ? shapesOf(taken, value) : options.flatMap((o) => shapesOf(o, value));
  }
  return [schema];
}

interface Field {
  path: (string | number)[];
  schema: z.ZodType;
  value: unknown;
  kinds: Set<string>;
}

/** Every field of the input, nested ones included where the valid input has them. */
function fieldsOf(schema: z.ZodType, value: unknown, path: (string | number)[] = []): Field[] {
  const shapes = shapesOf(schema, value);
  const kinds = new Set(shapes.map((s) => defOf(s).type));
  const own: Field[] = path.length ? [{ path, schema, value, kinds }] : [];
  const nested = shapes.flatMap((s) => {
    const def = defOf(s);
    if (def.type === "object" && value && typeof value === "object" && !Array.isArray(value)) {
      return Object.entries(def.shape!).flatMap(([key, child]) =>
        fieldsOf(child, (value as Record<string, unknown>)[key], [...path, key]),
      );
    }
    if (def.type === "array" && Array.isArray(value) && value.length > 0) {
      return fieldsOf(def.element!, value[0], [...path, 0]);
    }
    if (def.type === "record" && value && typeof value === "object") {
      const [key, entry] = Object.entries(value)[0] ?? [];
      return key === undefined ? [] : fieldsOf(def.valueType!, entry, [...path, key]);
    }
    return [];
  });
  return [...own, ...nested];
}

function withValue(input: unknown, path: (string | number)[], value: unknown): unknown {
  const copy = structuredClone(input) as Record<string | number, unknown>;
  let at = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  at[path.at(-1)!] = value;
  return copy;
}

// ---- the bad values ----

let counter = 0;
const UNICODE = () => `Zoë 🚀👩🏽‍💻 שלום עולם مرحبا e\u0301 n\u0303 ${++counter}`;
const MARKUP = () => `<script>alert(1)</script><b>x</b> '; DROP TABLE "Run"; -- ${++counter}`;
const HUGE_TEXT = "x".repeat(2_000_000);
const WRONG_TYPES: unknown[] = [12_345, "text", true, { nested: { deep: 1 } }, [1, 2]];

interface Case {
  name: string;
  field: string;
  path: (string | number)[];
  value: unknown;
  /** Text that may be stored as sent instead of refused. */
  storable?: string;
}

function casesFor(base: unknown, schema: z.ZodType): Case[] {
  const cases: Case[] = [];
  for (const { path, schema: fieldSchema, value, kinds } of fieldsOf(schema, base)) {
    const field = path.join(".");
    const add = (label: string, bad: unknown, storable?: string) =>
      cases.push({ name: `${field}: ${label}`, field, path, value: bad, storable });
    const wrong = WRONG_TYPES.find((v) => !fieldSchema.safeParse(v).success);
    if (wrong !== undefined) add("wrong type", wrong);
    if (kinds.has("number")) add("not finite", Number.POSITIVE_INFINITY);
    if (kinds.has("string")) {
      add("2 MB of text", HUGE_TEXT);
      // Past format checks (URLs, metric keys, names) to the length limit behind them.
      if (typeof value === "string" && value) add("valid, then 2 MB more", value + HUGE_TEXT);
      const unicode = UNICODE();
      add("emoji, RTL and combining marks", unicode, unicode);
      const markup = MARKUP();
      add("SQL and HTML", markup, markup);
    }
    if (kinds.has("array")) {
      const element = Array.isArray(value) && value.length ? value[0] : "a";
      add(
        "10,000 elements",
        Array.from({ length: 10_000 }, () => structuredClone(element)),
      );
    }
    if (kinds.has("record")) {
      const entry = value && typeof value === "object" ? Object.values(value)[0] : "v";
      add("10,000 entries", Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, entry])));
    }
  }
  return cases;
}

// ---- the procedures ----

interface ProcedureDef {
  _def: { type: string; inputs: z.ZodType[] };
}
const PROCEDURES = appRouter._def.procedures as unknown as Record<string, ProcedureDef>;
const FORMS = Object.keys(PROCEDURES)
  .filter((p) => PROCEDURES[p]!._def.type === "mutation" && PROCEDURES[p]!._def.inputs.length > 0)
  .filter((p) => !(p in COVERED_ELSEWHERE))
  .sort();

let t: TestDatabase;
let queue: Queue;
const prefix = `bbinput-${randomBytes(4).toString("hex")}`;
const secretKey = randomBytes(32);

beforeAll(async () => {
  t = await createTestDatabase();
  // Test servers listen on 127.0.0.1, which this install's operator allows as a target.
  await allowLoopbackTargets(t.db);
  queue = createRunsQueue(process.env.REDIS_URL ?? DEFAULT_REDIS_URL, prefix);
});

afterAll(async () => {
  await queue?.obliterate({ force: true }).catch(() => {});
  await queue?.close();
  await t?.drop();
});

/** The error names the field (or a part of it), or the list the spoiled element is in. */
function namesField(outcome: Extract<Outcome, { ok: false }>, field: string): boolean {
  const list = /^(.+)\.\d+$/.exec(field)?.[1];
  return outcome.fields.some((f) => f === field || f.startsWith(`${field}.`) || f === list);
}

/** Queued runs count against the organization's cap on concurrent runs; accepted launches must not use it up. */
async function endQueuedRuns(db: Db, orgId: string) {
  await db.run.updateMany({ where: { orgId, status: "queued" }, data: { status: "canceled", endedAt: new Date() } });
}

describe("bad input", () => {
  it("covers the form and upload procedures, and the exceptions name procedures that exist", () => {
    expect(FORMS.length).toBeGreaterThan(20);
    const named = [COVERED_ELSEWHERE, RICH_INPUTS, NOT_STORED, LONG_LISTS_OK].flatMap((table) =>
      Object.keys(table).map((key) => key.split(" ")[0]!),
    );
    const stale = named.filter((p) => !PROCEDURES[p]);
    expect(stale).toEqual([]);
  });

  it.each(FORMS)("%s", async (path) => {
    const f: OrgFixture = await createOrgFixture(t.db);
    const ctx = await sessionContext({ db: t.db, queue, secretKey }, f.users.owner.sessionToken, f.org.slug);
    const who = { kind: "owner", orgId: f.org.id, email: f.users.owner.email, role: "owner" as const };
    const build = RICH_INPUTS[path] ?? INPUTS[path];
    expect(build && build !== "none", `no input builder for ${path}`).toBe(true);
    // Built afresh for every case: names that must be unique differ each time.
    const validInput = async () => (build as Build)(f, { db: t.db, who });
    const schema = PROCEDURES[path]!._def.inputs[0]!;
    const base = await validInput();
    expect(schema.safeParse(base).success, `the valid input of ${path} is not valid`).toBe(true);

    const failures: string[] = [];
    let beforeRows = await snapshotOrg(t.db, f.org.id);
    let before = JSON.stringify(beforeRows);
    for (const c of casesFor(base, schema)) {
      const outcome = await callProcedure(ctx, path, withValue(await validInput(), c.path, c.value));
      const afterRows = await snapshotOrg(t.db, f.org.id);
      const after = JSON.stringify(afterRows);
      if (!outcome.ok) {
        if (!namesField(outcome, c.field)) {
          failures.push(
            `${c.name}: ${outcome.code} naming ${outcome.fields.join(", ") || "no field"}: ${outcome.message.slice(0, 200)}`,
          );
        }
        if (after !== before) failures.push(`${c.name}: refused, yet stored rows changed`);
        continue;
      }
      if (c.storable === undefined) {
        if (!(`${path} ${c.field}` in LONG_LISTS_OK)) failures.push(`${c.name}: accepted`);
      } else if (
        !(path in NOT_STORED || `${path} ${c.field}` in NOT_STORED) &&
        !after.includes(JSON.stringify(c.storable).slice(1, -1))
      ) {
        failures.push(`${c.name}: accepted, but not stored as sent`);
      }
      // Stored as data, never run as SQL: every row there was is still there.
      const remaining = idsIn(afterRows);
      const lost = [...idsIn(beforeRows)].filter((id) => !remaining.has(id));
      if (lost.length) failures.push(`${c.name}: accepted, and ${lost.length} stored rows disappeared`);
      await endQueuedRuns(t.db, f.org.id);
      beforeRows = await snapshotOrg(t.db, f.org.id);
      before = JSON.stringify(beforeRows);
    }
    expect(failures).toEqual([]);
  });
});

describe("bad input inside an uploaded result", () => {
  // The upload's content is one string to the matrix above; inside it, every record of the
  // result gets 10,000 entries (extra: 2 MB of JSON). Each is refused naming its field and the
  // limit, before anything is stored.
  const many = (n: number, entry: (i: number) => unknown) =>
    Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, entry(i)]));
  const RECORDS: [string, Record<string, unknown>][] = [
    ["result.metrics", { metrics: many(10_000, (i) => i) }],
    ["result.statusCounts", { statusCounts: many(10_000, () => 1) }],
    ["result.stages", { stages: many(10_000, () => ({ meanMs: 1 })) }],
    ["result.series", { series: many(10_000, () => ({ start: 0, values: [1] })) }],
    ["result.histograms", { histograms: many(10_000, () => "x") }],
    ["result.errors", { errors: Array.from({ length: 10_000 }, () => ({ kind: "timeout", count: 1 })) }],
    ["result.extra", { extra: many(10_000, () => "x".repeat(200)) }],
  ];

  it.each(RECORDS)("upload.run refuses 10,000 entries in %s, naming it and the limit", async (field, parts) => {
    const f: OrgFixture = await createOrgFixture(t.db);
    const ctx = await sessionContext({ db: t.db, queue, secretKey }, f.users.owner.sessionToken, f.org.slug);
    const content = JSON.stringify({ schemaVersion: 1, result: { metrics: { rps: 1 }, ...parts } });
    const before = JSON.stringify(await snapshotOrg(t.db, f.org.id));
    const outcome = await callProcedure(ctx, "upload.run", { project: f.project.id, format: "native", content });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.code).toBe("BAD_REQUEST");
    expect(outcome.fields).toContain(field);
    expect(outcome.message).toMatch(/at most [\d,]+$/);
    expect(JSON.stringify(await snapshotOrg(t.db, f.org.id))).toBe(before);
  });
});
