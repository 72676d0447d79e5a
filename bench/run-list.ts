// Server time of the run list (filtered, sorted, paginated) and of a 10-run comparison with
// 1-hour per-second series, on a fresh test database loaded with 10,000 runs with results and
// series. Measures the tRPC procedure (validation, auth middleware, query) in-process, so the
// figures are what the server spends per request, without HTTP or rendering.
import { performance } from "node:perf_hooks";
import { createCaller } from "../packages/api/src/root";
import { getComparisonView } from "../packages/db/src/queries/comparison";
import { createTestDatabase } from "../packages/db/src/testing";
import { envNumber, fmt, loadAverage } from "./lib";

const RUNS = envNumber("BENCH_RUNS", 10_000);
const ITERATIONS = envNumber("BENCH_ITERATIONS", 200);
const WARMUP = envNumber("BENCH_WARMUP", 20);
/** Points per series of the comparison's runs: one hour at one per second. */
const LONG_POINTS = envNumber("BENCH_SERIES_POINTS", 3_600);
/** Points per series of every other run (a one-minute run). */
const SHORT_POINTS = 60;
const LIST_GOAL_MS = 200;
const COMPARE_GOAL_MS = 300;
const COMPARE_METRICS = [
  "rps",
  "latency_p50",
  "latency_p90",
  "latency_p99",
  "errors",
  "mem_bytes",
  "cpu_cores",
  "queue_depth",
];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

async function measure(name: string, fn: () => Promise<unknown>, iterations = ITERATIONS) {
  for (let i = 0; i < WARMUP; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { name, p50: percentile(times, 50), p95: percentile(times, 95), max: times[times.length - 1] ?? 0 };
}

const t = await createTestDatabase();
const db = t.db;
console.log(`load average before: ${loadAverage()}`);
try {
  const loadStart = performance.now();
  const org = await db.organization.create({ data: { name: "Bench", slug: "bench" } });
  // Everything below is generated in SQL: 10,000 runs load in seconds instead of minutes.
  await db.$executeRawUnsafe(`
    INSERT INTO "Project" (id, "orgId", name, slug, "runCounter", "updatedAt")
    SELECT 'p' || i, '${org.id}', 'project ' || i, 'project-' || i, 0, now() FROM generate_series(1, 4) i`);
  await db.$executeRawUnsafe(`
    INSERT INTO "Target" (id, "orgId", "projectId", name, kind, "baseUrl", "updatedAt")
    SELECT 't' || p || '-' || i, '${org.id}', 'p' || p, 'target ' || i, 'http', 'http://127.0.0.1:' || (4000 + i), now()
    FROM generate_series(1, 4) p, generate_series(1, 3) i`);
  await db.$executeRawUnsafe(`
    INSERT INTO "InstanceConfig" (id, "orgId", "projectId", name, "instanceType", vcpu, "memoryMb", knobs, "updatedAt")
    SELECT 'c' || p || '-' || i, '${org.id}', 'p' || p, 'config ' || i, (ARRAY['t3.medium','t3.xlarge','c6i.xlarge'])[i],
      (ARRAY[2,4,4])[i], (ARRAY[4096,16384,8192])[i], jsonb_build_object('buffer_size', 1000 * i), now()
    FROM generate_series(1, 4) p, generate_series(1, 3) i`);
  await db.$executeRawUnsafe(`
    INSERT INTO "Scenario" (id, "orgId", "projectId", name, engine, spec, "updatedAt")
    SELECT 's' || p || '-' || i, '${org.id}', 'p' || p, 'scenario ' || i || ' at ' || (i * 1000) || ' rps', 'http-open',
      jsonb_build_object('engine', 'http-open', 'rate', i * 1000, 'durationS', 60), now()
    FROM generate_series(1, 4) p, generate_series(1, 5) i`);
  await db.$executeRawUnsafe(`
    INSERT INTO "Run" (id, "orgId", "projectId", number, "targetId", "instanceConfigId", "scenarioId", status,
      "scenarioName", branch, tags, notes, "createdAt", "startedAt", "endedAt", "updatedAt",
      "targetSnapshot", "scenarioSnapshot", "configSnapshot")
    SELECT 'r' || lpad(i::text, 6, '0'), '${org.id}', 'p' || (1 + i % 4), i,
      't' || (1 + i % 4) || '-' || (1 + i % 3), 'c' || (1 + i % 4) || '-' || (1 + (i / 7) % 3), 's' || (1 + i % 4) || '-' || (1 + (i / 3) % 5),
      (CASE WHEN i % 100 < 90 THEN 'succeeded' WHEN i % 100 < 95 THEN 'failed' WHEN i % 100 < 98 THEN 'canceled'
            WHEN i % 100 < 99 THEN 'running' ELSE 'queued' END)::"RunStatus",
      'scenario ' || (1 + (i / 3) % 5) || ' at ' || ((1 + (i / 3) % 5) * 1000) || ' rps',
      (ARRAY['main','main','main','feat/pool','feat/buffer','release/1.2'])[1 + i % 6],
      CASE i % 5 WHEN 0 THEN ARRAY['nightly'] WHEN 1 THEN ARRAY['pr'] WHEN 2 THEN ARRAY['nightly', 't3']
        WHEN 3 THEN ARRAY['tuning', 'pool-10k'] ELSE ARRAY[]::text[] END,
      CASE WHEN i % 17 = 0 THEN 'pool ' || (i % 5) * 2500 || ' looks better; queue depth stays low' ELSE '' END,
      now() - make_interval(secs => (${RUNS} - i) * 1500),
      now() - make_interval(secs => (${RUNS} - i) * 1500) + interval '1 second',
      now() - make_interval(secs => (${RUNS} - i) * 1500) + interval '61 seconds',
      now(),
      jsonb_build_object('name', 'target', 'baseUrl', 'http://127.0.0.1:4100', 'headers', '[]'::jsonb),
      jsonb_build_object('name', 'scenario', 'spec', jsonb_build_object('engine', 'http-open', 'rate', 1000, 'durationS', 60)),
      jsonb_build_object('name', 'config', 'vcpu', 2, 'knobs', jsonb_build_object('buffer_size', 1000))
    FROM generate_series(1, ${RUNS}) i`);
  await db.$executeRawUnsafe(
    `UPDATE "Project" p SET "runCounter" = (SELECT count(*) FROM "Run" r WHERE r."projectId" = p.id)`,
  );
  // Results for every run that ended; a realistic spread of metric keys and a 3 KB histogram.
  await db.$executeRawUnsafe(`
    INSERT INTO "RunResult" ("runId", metrics, histogram, "statusCounts", valid)
    SELECT r.id,
      jsonb_build_object(
        'requests', 60000, 'success', 59990, 'failed', 10, 'success_rate', 99.98,
        'rps', round((800 + (r.number * 7919) % 4200 + random())::numeric, 2), 'target_rps', 5000,
        'latency_min', 0.8, 'latency_mean', 12.5, 'latency_p50', round((5 + random() * 20)::numeric, 3),
        'latency_p90', 30.1, 'latency_p95', 41.7, 'latency_p99', round((40 + (r.number * 104729) % 900 + random())::numeric, 3),
        'latency_p999', 210.4, 'latency_max', 480.2, 'latency_stddev', 9.8, 'req_bytes_avg', 310, 'res_bytes_avg', 1402,
        'mem_peak_bytes', 734003200, 'mem_avg_bytes', 512000000, 'cpu_peak', 1.7, 'queue_depth_peak', (r.number % 300),
        'runtime_ms', 60000, 'stage.queue_wait', 0.4, 'stage.upstream_request', 50.2),
      repeat('HISTb64', 440), '{"200": 59990, "503": 10}'::jsonb, true
    FROM "Run" r WHERE r.status IN ('succeeded', 'failed', 'canceled')`);
  await db.$executeRawUnsafe(`
    INSERT INTO "Series" (id, "runId", metric, start, "intervalMs", values)
    SELECT r.id || '-' || m, r.id, m, r."startedAt", 1000,
      (SELECT jsonb_agg(round((x * 1.5 + length(r.id))::numeric, 2)) FROM generate_series(1, ${SHORT_POINTS}) x)
    FROM "Run" r JOIN "RunResult" rr ON rr."runId" = r.id, unnest(ARRAY['rps', 'latency_p50', 'latency_p99', 'mem_bytes']) m`);

  // Ten one-hour runs to compare, with every series the compare page can draw.
  const compareIds = Array.from({ length: 10 }, (_, i) => `cmp${i}`);
  await db.$executeRawUnsafe(`
    INSERT INTO "Run" (id, "orgId", "projectId", number, status, "scenarioName", tags, "createdAt", "startedAt", "endedAt",
      "updatedAt", "groupId", "groupIndex")
    SELECT 'cmp' || i, '${org.id}', 'p1', 100000 + i, 'succeeded', 'one hour at 5k rps', ARRAY['soak'],
      now() - interval '2 days', now() - interval '2 days', now() - interval '2 days' + interval '1 hour', now(),
      CASE WHEN i < 3 THEN 'cmp0' END, CASE WHEN i < 3 THEN i END
    FROM generate_series(0, 9) i`);
  await db.$executeRawUnsafe(`
    INSERT INTO "RunResult" ("runId", metrics, histogram, valid)
    SELECT r.id, (SELECT metrics FROM "RunResult" LIMIT 1) || jsonb_build_object('rps', 4900 + r.number % 100),
      repeat('HISTb64', 440), true
    FROM "Run" r WHERE r.id LIKE 'cmp%'`);
  await db.$executeRawUnsafe(`
    INSERT INTO "Series" (id, "runId", metric, start, "intervalMs", values)
    SELECT r.id || '-' || m, r.id, m, r."startedAt", 1000,
      (SELECT jsonb_agg(round((4900 + sin(x / 60.0) * 80 + length(m))::numeric, 3)) FROM generate_series(1, ${LONG_POINTS}) x)
    FROM "Run" r, unnest(ARRAY['${COMPARE_METRICS.join("','")}']) m WHERE r.id LIKE 'cmp%'`);
  await db.$executeRawUnsafe(`ANALYZE`);
  const counts = await db.$queryRawUnsafe<{ runs: bigint; results: bigint; series: bigint; mb: string }[]>(`
    SELECT (SELECT count(*) FROM "Run") runs, (SELECT count(*) FROM "RunResult") results,
           (SELECT count(*) FROM "Series") series, pg_size_pretty(pg_database_size(current_database())) mb`);
  const c = counts[0]!;
  console.log(
    `loaded ${c.runs} runs, ${c.results} results, ${c.series} series (${c.mb}) in ${fmt((performance.now() - loadStart) / 1000, 1)} s`,
  );

  const queue = { add: async () => ({ id: "unused" }) } as never;
  const caller = createCaller({ db, queue, orgId: org.id, userId: null, role: "viewer" });

  // A cursor deep in the list: the page after 20 pages of 50.
  let deepCursor: string | undefined;
  let deepRpsCursor: string | undefined;
  for (let page = 0; page < 20; page++) {
    deepCursor = (await caller.run.list({ limit: 50, cursor: deepCursor })).nextCursor ?? deepCursor;
    deepRpsCursor =
      (await caller.run.list({ limit: 50, sort: "rps", cursor: deepRpsCursor })).nextCursor ?? deepRpsCursor;
  }
  const day = 86_400_000;
  const cases: [string, () => Promise<unknown>][] = [
    ["newest, first page (50)", () => caller.run.list({ limit: 50 })],
    ["newest, page 21 (cursor)", () => caller.run.list({ limit: 50, cursor: deepCursor })],
    [
      "project + status + tag",
      () => caller.run.list({ limit: 50, projectId: "p2", status: "succeeded", tag: "nightly" }),
    ],
    [
      "target + config + branch",
      () => caller.run.list({ limit: 50, targetId: "t3-2", instanceConfigId: "c3-1", branch: "main" }),
    ],
    ["search in names/notes/tags", () => caller.run.list({ limit: 50, search: "pool" })],
    [
      "date range (30 days)",
      () => caller.run.list({ limit: 50, from: new Date(Date.now() - 60 * day), to: new Date(Date.now() - 30 * day) }),
    ],
    ["sort rps, first page", () => caller.run.list({ limit: 50, sort: "rps" })],
    ["sort rps, page 21 (cursor)", () => caller.run.list({ limit: 50, sort: "rps", cursor: deepRpsCursor })],
    [
      "sort p99 + project + status",
      () => caller.run.list({ limit: 50, sort: "p99", projectId: "p1", status: "succeeded" }),
    ],
  ];
  const results = [];
  for (const [name, fn] of cases) results.push(await measure(name, fn));

  const view = await getComparisonView(db, org.id, { runIds: compareIds });
  const points = Object.values(view.charts)[0]?.length ?? 0;
  const compare = await measure(
    `comparison of 10 runs (${Object.keys(view.charts).length} charts × ${points} points)`,
    () => getComparisonView(db, org.id, { runIds: compareIds }),
    Math.max(20, Math.round(ITERATIONS / 4)),
  );

  console.log(`\nserver time, ${ITERATIONS} iterations after ${WARMUP} warm-up (ms)`);
  console.log(`${"case".padEnd(58)} ${"p50".padStart(8)} ${"p95".padStart(8)} ${"max".padStart(8)}`);
  for (const r of [...results, compare]) {
    console.log(
      `${r.name.padEnd(58)} ${fmt(r.p50, 1).padStart(8)} ${fmt(r.p95, 1).padStart(8)} ${fmt(r.max, 1).padStart(8)}`,
    );
  }
  const worstList = Math.max(...results.map((r) => r.p95));
  console.log(
    `\nrun list: worst p95 ${fmt(worstList, 1)} ms (goal < ${LIST_GOAL_MS} ms) ${worstList < LIST_GOAL_MS ? "OK" : "OVER"}`,
  );
  console.log(
    `comparison: p95 ${fmt(compare.p95, 1)} ms (goal < ${COMPARE_GOAL_MS} ms) ${compare.p95 < COMPARE_GOAL_MS ? "OK" : "OVER"}`,
  );
  console.log(`load average after: ${loadAverage()}`);
} finally {
  if (process.env.BENCH_KEEP_DB) console.log(`kept database ${t.name}`);
  else await t.drop();
}
