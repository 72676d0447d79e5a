// Server time of the run list (filtered, sorted by creation or by any metric, paginated), of a
// 10,000-run trend with change points and of a 10-run comparison with 1-hour per-second series,
// on a database of its own loaded with BENCH_RUNS runs (up to a million and more) with results
// and series. Measures the tRPC procedures (validation, auth middleware, query) in-process, so
// the figures are what the server spends per request, without HTTP or rendering. It also prints
// the load time, the database size and the bytes each run costs (result, histogram, series,
// metric rows), so storage growth is a number.
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { createCaller } from "../packages/api/src/root";
import { createDb, DEFAULT_DATABASE_URL } from "../packages/db/src/client";
import { applyMigrations } from "../packages/db/src/migrate";
import { getComparisonView } from "../packages/db/src/queries/comparison";
import { envNumber, fmt, loadAverage } from "./lib";

const RUNS = envNumber("BENCH_RUNS", 10_000);
const ITERATIONS = envNumber("BENCH_ITERATIONS", 200);
const WARMUP = envNumber("BENCH_WARMUP", 20);
/** Runs inserted per statement: each batch is its own transaction, with progress printed. */
const BATCH = envNumber("BENCH_BATCH", 100_000);
/** Points per series of the comparison's runs: one hour at one per second. */
const LONG_POINTS = envNumber("BENCH_SERIES_POINTS", 3_600);
/** Points per series of every other run (a one-minute run). */
const SHORT_POINTS = 60;
/** Runs on the trend's line (one scenario on one branch). */
const TREND_RUNS = envNumber("BENCH_TREND_RUNS", 10_000);
/** Only the cases whose names match this regular expression (all when unset). */
const ONLY = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY, "i") : null;
const LIST_GOAL_MS = 100;
const TREND_GOAL_MS = 200;
const COMPARE_GOAL_MS = 100;
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
const DB_PREFIX = "bb_bench_runlist_";

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

const baseUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
const withDatabase = (name: string) => {
  const u = new URL(baseUrl);
  u.pathname = `/${name}`;
  return u.toString();
};
/** Statements on the server's maintenance database, as the app's own (non-superuser) user. */
async function admin(sql: string): Promise<void> {
  const maintenance = createDb(withDatabase("postgres"), { max: 1 });
  try {
    await maintenance.$executeRawUnsafe(sql);
  } finally {
    await maintenance.$disconnect();
  }
}

// BENCH_DB=<name> measures a database an earlier run kept (BENCH_KEEP_DB=1) without loading it again.
const reuse = process.env.BENCH_DB;
const dbName = reuse ?? `${DB_PREFIX}${randomBytes(4).toString("hex")}`;
if (!reuse) await admin(`CREATE DATABASE "${dbName}" TEMPLATE template0`);
// A kept database gets the migrations added since it was loaded.
await applyMigrations(withDatabase(dbName));
const db = createDb(withDatabase(dbName), { max: 4 });
const seconds = (since: number) => fmt((performance.now() - since) / 1000, 1);
console.log(`load average before: ${loadAverage()}`);
try {
  const loadStart = performance.now();
  const org = reuse
    ? await db.organization.findUniqueOrThrow({ where: { slug: "bench" } })
    : await db.organization.create({ data: { name: "Bench", slug: "bench" } });
  if (!reuse) await load(org.id);
  const counts = await db.$queryRawUnsafe<
    {
      runs: bigint;
      results: bigint;
      series: bigint;
      metric_rows: bigint;
      db_bytes: bigint;
      run_bytes: bigint;
      result_bytes: bigint;
      histogram_bytes: bigint;
      series_bytes: bigint;
      rollup_bytes: bigint;
      rollup_runs: bigint;
      long_series_bytes: bigint;
      metric_bytes: bigint;
    }[]
  >(`
    SELECT (SELECT count(*) FROM "Run") runs, (SELECT count(*) FROM "RunResult") results,
           (SELECT count(*) FROM "Series") series, (SELECT count(*) FROM "RunMetric") metric_rows,
           pg_database_size(current_database()) db_bytes,
           pg_total_relation_size('"Run"') run_bytes, pg_total_relation_size('"RunResult"') result_bytes,
           (SELECT coalesce(sum(pg_column_size(histogram)), 0) FROM "RunResult") histogram_bytes,
           pg_total_relation_size('"Series"') series_bytes, pg_total_relation_size('"RunMetric"') metric_bytes,
           l.rollup_bytes, l.rollup_runs, l.long_series_bytes
    FROM (SELECT coalesce(sum(pg_column_size(rollup)), 0) rollup_bytes, count(DISTINCT "runId") rollup_runs,
                 coalesce(sum(pg_column_size("values")), 0) long_series_bytes
          FROM "Series" WHERE rollup IS NOT NULL) l`);
  const c = counts[0]!;
  const runs = Number(c.runs);
  const perRun = (bytes: bigint) => fmt(Number(bytes) / runs, 0).padStart(8);
  console.log(
    `${reuse ? "reused" : "loaded"} ${fmt(runs)} runs, ${fmt(Number(c.results))} results, ${fmt(Number(c.series))} series, ` +
      `${fmt(Number(c.metric_rows))} metric rows${reuse ? "" : ` in ${seconds(loadStart)} s`}`,
  );
  console.log(
    `database size ${fmt(Number(c.db_bytes) / 2 ** 20, 0)} MB; bytes per run (tables with their indexes and TOAST):`,
  );
  console.log(`  run row                ${perRun(c.run_bytes)}`);
  console.log(
    `  result without histogram ${perRun(c.result_bytes - c.histogram_bytes)
      .trimStart()
      .padStart(6)}`,
  );
  console.log(`  merged histogram       ${perRun(c.histogram_bytes)}`);
  console.log(`  series                 ${perRun(c.series_bytes)}`);
  console.log(`  metric rows (RunMetric)${perRun(c.metric_bytes)}`);
  const rollupRuns = Number(c.rollup_runs);
  if (rollupRuns > 0)
    console.log(
      `  runs with long series (${fmt(rollupRuns)}): samples ${fmt(Number(c.long_series_bytes) / rollupRuns, 0)}, ` +
        `reduced copies ${fmt(Number(c.rollup_bytes) / rollupRuns, 0)} bytes per run (counted in series above)`,
    );

  const queue = { add: async () => ({ id: "unused" }) } as never;
  const caller = createCaller({ db, queue, orgId: org.id, userId: null, role: "viewer" });

  const compareIds = Array.from({ length: 10 }, (_, i) => `cmp${i}`);
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
    [
      "sort p50 (any metric), lowest first",
      () => caller.run.list({ limit: 50, sort: "metric", sortMetric: "latency_p50" }),
    ],
    [
      "filter p99 ≤ 100 ms, sort rps",
      () => caller.run.list({ limit: 50, sort: "rps", metrics: [{ key: "latency_p99", max: 100 }] }),
    ],
    [
      "filter rps 2,000–2,500, newest",
      () => caller.run.list({ limit: 50, metrics: [{ key: "rps", min: 2_000, max: 2_500 }] }),
    ],
  ];
  const selected = (name: string) => !ONLY || ONLY.test(name);
  const results = [];
  for (const [name, fn] of cases) if (selected(name)) results.push(await measure(name, fn));

  const trendInput = { projectId: "p1", scenarioName: "nightly soak", metric: "rps", branch: "main" };
  let trendCase: Awaited<ReturnType<typeof measure>> | null = null;
  if (selected("trend")) {
    const trend = await caller.trend.view(trendInput);
    trendCase = await measure(
      `trend of ${fmt(trend.points.length)} runs + ${trend.changePoints.length} change point(s)`,
      () => caller.trend.view(trendInput),
      Math.max(20, Math.round(ITERATIONS / 4)),
    );
  }

  let shardCase: Awaited<ReturnType<typeof measure>> | null = null;
  if (selected("trend")) {
    const shardInput = { ...trendInput, shards: 2 };
    const shardTrend = await caller.trend.view(shardInput);
    shardCase = await measure(
      `trend of ${fmt(shardTrend.points.length)} 2-shard runs (of the line's runs)`,
      () => caller.trend.view(shardInput),
      Math.max(20, Math.round(ITERATIONS / 4)),
    );
  }

  let compare: Awaited<ReturnType<typeof measure>> | null = null;
  if (selected("comparison")) {
    const view = await getComparisonView(db, org.id, { runIds: compareIds });
    const points = Object.values(view.charts)[0]?.length ?? 0;
    compare = await measure(
      `comparison of 10 runs (${Object.keys(view.charts).length} charts × ${points} points)`,
      () => getComparisonView(db, org.id, { runIds: compareIds }),
      Math.max(20, Math.round(ITERATIONS / 4)),
    );
  }

  console.log(`\nserver time at ${fmt(runs)} runs, ${ITERATIONS} iterations after ${WARMUP} warm-up (ms)`);
  console.log(`${"case".padEnd(58)} ${"p50".padStart(8)} ${"p95".padStart(8)} ${"max".padStart(8)}`);
  for (const r of [...results, trendCase, shardCase, compare]) {
    if (!r) continue;
    console.log(
      `${r.name.padEnd(58)} ${fmt(r.p50, 1).padStart(8)} ${fmt(r.p95, 1).padStart(8)} ${fmt(r.max, 1).padStart(8)}`,
    );
  }
  const verdict = (p95: number, goal: number) =>
    `p95 ${fmt(p95, 1)} ms (goal < ${goal} ms) ${p95 < goal ? "OK" : "OVER"}`;
  if (results.length) console.log(`\nrun list: worst ${verdict(Math.max(...results.map((r) => r.p95)), LIST_GOAL_MS)}`);
  if (trendCase) console.log(`trend: ${verdict(trendCase.p95, TREND_GOAL_MS)}`);
  if (trendCase && shardCase)
    console.log(
      `trend by shard count: ${verdict(shardCase.p95, TREND_GOAL_MS)}; p50 ${fmt(shardCase.p50 / trendCase.p50, 2)}× the whole line's`,
    );
  if (compare) console.log(`comparison: ${verdict(compare.p95, COMPARE_GOAL_MS)}`);
  console.log(`load average after: ${loadAverage()}`);
} finally {
  await db.$disconnect();
  if (process.env.BENCH_KEEP_DB || reuse)
    console.log(`kept database ${dbName} (measure it again with BENCH_DB=${dbName})`);
  else await admin(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
}

/**
 * Everything is generated in SQL, in batches of BENCH_BATCH runs (64-bit arithmetic throughout),
 * so a million runs load in minutes. RunMetric's trigger is set aside during the load and its
 * rows are written per batch by the same statement its migration back-fills with; its index is
 * built once at the end.
 */
async function load(orgId: string) {
  const exec = (sql: string) => db.$executeRawUnsafe(sql);
  await exec(`
    INSERT INTO "Project" (id, "orgId", name, slug, "runCounter", "updatedAt")
    SELECT 'p' || i, '${orgId}', 'project ' || i, 'project-' || i, 0, now() FROM generate_series(1, 4) i`);
  await exec(`
    INSERT INTO "Target" (id, "orgId", "projectId", name, kind, "baseUrl", "updatedAt")
    SELECT 't' || p || '-' || i, '${orgId}', 'p' || p, 'target ' || i, 'http', 'http://127.0.0.1:' || (4000 + i), now()
    FROM generate_series(1, 4) p, generate_series(1, 3) i`);
  await exec(`
    INSERT INTO "InstanceConfig" (id, "orgId", "projectId", name, "instanceType", vcpu, "memoryMb", knobs, "updatedAt")
    SELECT 'c' || p || '-' || i, '${orgId}', 'p' || p, 'config ' || i, (ARRAY['t3.medium','t3.xlarge','c6i.xlarge'])[i],
      (ARRAY[2,4,4])[i], (ARRAY[4096,16384,8192])[i], jsonb_build_object('buffer_size', 1000 * i), now()
    FROM generate_series(1, 4) p, generate_series(1, 3) i`);
  await exec(`
    INSERT INTO "Scenario" (id, "orgId", "projectId", name, engine, spec, "updatedAt")
    SELECT 's' || p || '-' || i, '${orgId}', 'p' || p, 'scenario ' || i || ' at ' || (i * 1000) || ' rps', 'http-open',
      jsonb_build_object('engine', 'http-open', 'rate', i * 1000, 'durationS', 60), now()
    FROM generate_series(1, 4) p, generate_series(1, 5) i`);
  // 97 one-minute series shapes, picked per run: the values differ between runs without
  // aggregating 60 points for each of millions of series.
  await exec(`
    CREATE TEMP TABLE series_shape AS
    SELECT k, (SELECT jsonb_agg(round((x * 1.5 + k * 3.7 + sin(x + k) * 40)::numeric, 2)) FROM generate_series(1, ${SHORT_POINTS}) x) AS points
    FROM generate_series(0, 96) k`);
  await exec(`ALTER TABLE "RunResult" DISABLE TRIGGER "RunResult_metrics_sync"`);
  await exec(`DROP INDEX "RunMetric_orgId_key_value_runId_idx"`);

  const total = RUNS + TREND_RUNS;
  for (let lo = 1; lo <= total; lo += BATCH) {
    const hi = Math.min(total, lo + BATCH - 1);
    const t0 = performance.now();
    await loadBatch(orgId, lo, hi);
    console.log(`  runs ${fmt(lo)}–${fmt(hi)} in ${seconds(t0)} s (load average ${loadAverage()})`);
  }
  await loadComparison(orgId);
  const t0 = performance.now();
  await exec(`CREATE INDEX "RunMetric_orgId_key_value_runId_idx" ON "RunMetric"("orgId", "key", "value", "runId")`);
  await exec(`ALTER TABLE "RunResult" ENABLE TRIGGER "RunResult_metrics_sync"`);
  await exec(`UPDATE "Project" p SET "runCounter" = (SELECT max(number) FROM "Run" r WHERE r."projectId" = p.id)`);
  await exec(`VACUUM ANALYZE`);
  console.log(`  index, counters and VACUUM ANALYZE in ${seconds(t0)} s`);
}

/** Runs lo..hi: the first RUNS spread over four projects, then the trend's line. */
async function loadBatch(orgId: string, lo: number, hi: number) {
  const exec = (sql: string) => db.$executeRawUnsafe(sql);
  const regularHi = Math.min(hi, RUNS);
  if (lo <= regularHi) {
    await exec(`
      INSERT INTO "Run" (id, "orgId", "projectId", number, "targetId", "instanceConfigId", "scenarioId", status,
        "scenarioName", branch, tags, notes, "createdAt", "startedAt", "endedAt", "updatedAt",
        "targetSnapshot", "scenarioSnapshot", "configSnapshot")
      SELECT 'r' || lpad(i::text, 10, '0'), '${orgId}', 'p' || (1 + i % 4), i,
        't' || (1 + i % 4) || '-' || (1 + i % 3), 'c' || (1 + i % 4) || '-' || (1 + (i / 7) % 3), 's' || (1 + i % 4) || '-' || (1 + (i / 3) % 5),
        (CASE WHEN i % 100 < 90 THEN 'succeeded' WHEN i % 100 < 95 THEN 'failed' WHEN i % 100 < 98 THEN 'canceled'
              WHEN i % 100 < 99 THEN 'running' ELSE 'queued' END)::"RunStatus",
        'scenario ' || (1 + (i / 3) % 5) || ' at ' || ((1 + (i / 3) % 5) * 1000) || ' rps',
        (ARRAY['main','main','main','feat/pool','feat/buffer','release/1.2'])[1 + i % 6],
        CASE i % 5 WHEN 0 THEN ARRAY['nightly'] WHEN 1 THEN ARRAY['pr'] WHEN 2 THEN ARRAY['nightly', 't3']
          WHEN 3 THEN ARRAY['tuning', 'pool-10k'] ELSE ARRAY[]::text[] END,
        CASE WHEN i % 17 = 0 THEN 'pool ' || (i % 5) * 2500 || ' looks better; queue depth stays low' ELSE '' END,
        now() - make_interval(secs => (${RUNS}::bigint - i) * 1500),
        now() - make_interval(secs => (${RUNS}::bigint - i) * 1500) + interval '1 second',
        now() - make_interval(secs => (${RUNS}::bigint - i) * 1500) + interval '61 seconds',
        now(),
        jsonb_build_object('name', 'target', 'baseUrl', 'http://127.0.0.1:4100', 'headers', '[]'::jsonb),
        jsonb_build_object('name', 'scenario', 'spec', jsonb_build_object('engine', 'http-open', 'rate', 1000, 'durationS', 60)),
        jsonb_build_object('name', 'config', 'vcpu', 2, 'knobs', jsonb_build_object('buffer_size', 1000))
      FROM generate_series(${lo}::bigint, ${regularHi}::bigint) i`);
  }
  const trendLo = Math.max(lo, RUNS + 1);
  if (trendLo <= hi) {
    // One scenario's nightly history on main: 10,000 runs a minute apart, rps up 8 % at 60 %;
    // every fourth run split over two shards.
    await exec(`
      INSERT INTO "Run" (id, "orgId", "projectId", number, status, "scenarioName", branch, "shardCount", "createdAt",
        "startedAt", "endedAt", "updatedAt")
      SELECT 'n' || lpad(i::text, 10, '0'), '${orgId}', 'p1', 100 + i, 'succeeded', 'nightly soak', 'main',
        CASE WHEN i % 4 = 0 THEN 2 ELSE 1 END,
        now() - make_interval(secs => (${RUNS + TREND_RUNS}::bigint - i) * 60), now() - make_interval(secs => (${RUNS + TREND_RUNS}::bigint - i) * 60),
        now() - make_interval(secs => (${RUNS + TREND_RUNS}::bigint - i) * 60) + interval '60 seconds', now()
      FROM generate_series(${trendLo}::bigint, ${hi}::bigint) i`);
  }
  // Results for every run that ended: a realistic spread of metric keys and a 2.2 KB histogram
  // that does not compress (hex of hashes), like a real encoded HDR histogram.
  await exec(`
    INSERT INTO "RunResult" ("runId", metrics, histogram, "statusCounts", valid)
    SELECT r.id,
      jsonb_build_object(
        'requests', 60000, 'success', 59990, 'failed', 10, 'success_rate', 99.98,
        'rps', CASE WHEN r."scenarioName" = 'nightly soak'
                 THEN round((4000 + (CASE WHEN r.number::bigint - ${RUNS}::bigint - 100 > ${Math.round(TREND_RUNS * 0.6)} THEN 320 ELSE 0 END) + random() * 80)::numeric, 2)
                 ELSE round((800 + (r.number::bigint * 7919) % 4200 + random())::numeric, 2) END,
        'target_rps', 5000,
        'latency_min', 0.8, 'latency_mean', 12.5, 'latency_p50', round((5 + random() * 20)::numeric, 3),
        'latency_p90', 30.1, 'latency_p95', 41.7, 'latency_p99', round((40 + (r.number::bigint * 104729) % 900 + random())::numeric, 3),
        'latency_p999', 210.4, 'latency_max', 480.2, 'latency_stddev', 9.8, 'req_bytes_avg', 310, 'res_bytes_avg', 1402,
        'mem_peak_bytes', 734003200, 'mem_avg_bytes', 512000000, 'cpu_peak', 1.7, 'queue_depth_peak', (r.number::bigint % 300),
        'runtime_ms', 60000, 'stage.queue_wait', 0.4, 'stage.upstream_request', 50.2),
      (SELECT string_agg(md5(r.id || g::text), '') FROM generate_series(1, 70) g),
      '{"200": 59990, "503": 10}'::jsonb, true
    FROM "Run" r
    WHERE r.id IN (SELECT 'r' || lpad(i::text, 10, '0') FROM generate_series(${lo}::bigint, ${regularHi}::bigint) i
                   UNION ALL SELECT 'n' || lpad(i::text, 10, '0') FROM generate_series(${trendLo}::bigint, ${hi}::bigint) i)
      AND r.status IN ('succeeded', 'failed', 'canceled')`);
  await exec(`
    INSERT INTO "RunMetric" ("runId", "orgId", "key", "value", "runCreatedAt")
    SELECT rr."runId", '${orgId}', m.key, (m.value #>> '{}')::float8, r."createdAt"
    FROM "RunResult" rr JOIN "Run" r ON r.id = rr."runId", jsonb_each(rr.metrics) m
    WHERE rr."runId" IN (SELECT 'r' || lpad(i::text, 10, '0') FROM generate_series(${lo}::bigint, ${regularHi}::bigint) i
                         UNION ALL SELECT 'n' || lpad(i::text, 10, '0') FROM generate_series(${trendLo}::bigint, ${hi}::bigint) i)
      AND jsonb_typeof(m.value) = 'number'`);
  if (lo <= regularHi) {
    await exec(`
      INSERT INTO "Series" (id, "runId", metric, start, "intervalMs", values)
      SELECT r.id || '-' || m, r.id, m, r."startedAt", 1000, s.points
      FROM "Run" r JOIN "RunResult" rr ON rr."runId" = r.id
        JOIN series_shape s ON s.k = (hashtext(r.id) & 2147483647) % 97,
        unnest(ARRAY['rps', 'latency_p50', 'latency_p99', 'mem_bytes']) m
      WHERE r.id IN (SELECT 'r' || lpad(i::text, 10, '0') FROM generate_series(${lo}::bigint, ${regularHi}::bigint) i)`);
  }
}

/** Ten one-hour runs to compare, with every series the compare page can draw. */
async function loadComparison(orgId: string) {
  const exec = (sql: string) => db.$executeRawUnsafe(sql);
  await exec(`
    INSERT INTO "Run" (id, "orgId", "projectId", number, status, "scenarioName", tags, "createdAt", "startedAt", "endedAt",
      "updatedAt", "groupId", "groupIndex")
    SELECT 'cmp' || i, '${orgId}', 'p1', ${RUNS + TREND_RUNS}::bigint + 1000 + i, 'succeeded', 'one hour at 5k rps', ARRAY['soak'],
      now() - interval '2 days', now() - interval '2 days', now() - interval '2 days' + interval '1 hour', now(),
      CASE WHEN i < 3 THEN 'cmp0' END, CASE WHEN i < 3 THEN i END
    FROM generate_series(0, 9) i`);
  await exec(`
    INSERT INTO "RunResult" ("runId", metrics, histogram, valid)
    SELECT r.id, (SELECT metrics FROM "RunResult" WHERE "runId" LIKE 'r%' LIMIT 1) || jsonb_build_object('rps', 4900 + r.number % 100),
      (SELECT histogram FROM "RunResult" WHERE "runId" LIKE 'r%' LIMIT 1), true
    FROM "Run" r WHERE r.id LIKE 'cmp%'`);
  await exec(`
    INSERT INTO "RunMetric" ("runId", "orgId", "key", "value", "runCreatedAt")
    SELECT rr."runId", '${orgId}', m.key, (m.value #>> '{}')::float8, r."createdAt"
    FROM "RunResult" rr JOIN "Run" r ON r.id = rr."runId", jsonb_each(rr.metrics) m WHERE rr."runId" LIKE 'cmp%' AND jsonb_typeof(m.value) = 'number'`);
  await exec(`
    INSERT INTO "Series" (id, "runId", metric, start, "intervalMs", values)
    SELECT r.id || '-' || m, r.id, m, r."startedAt", 1000,
      (SELECT jsonb_agg(round((4900 + sin(x / 60.0) * 80 + length(m))::numeric, 3)) FROM generate_series(1, ${LONG_POINTS}) x)
    FROM "Run" r, unnest(ARRAY['${COMPARE_METRICS.join("','")}']) m WHERE r.id LIKE 'cmp%'`);
}
