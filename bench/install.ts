/**
 * The open model in a single-host install, beside oha and vegeta: a run launched through the
 * product and executed by a worker process, while the install's own web app serves live viewers
 * and PostgreSQL runs a heavy query, all on the same two cores. Nothing is pinned but the target
 * (nginx on BENCH_SERVER_CORE), as in an install where the worker, the web app, PostgreSQL and
 * the tools float over every core.
 *
 *   source scripts/lib.sh; ensure_secret_key; pnpm exec tsx bench/install.ts
 *
 * Per round, the tools alternate (rotating order): the worker's run (launched through the API, as
 * a user launches it), the engine alone in a child process (what the worker would read without
 * its own housekeeping), oha and vegeta. All the time, 50 viewers follow a running run's live
 * stream in the built web app (this script plays that run's worker, writing progress once a
 * second) and a session of PostgreSQL sorts two million rows over and over. Printed: each tool's
 * median p50 / p99 and their spread, the worker's p50 minus oha's and p99 over oha's, the worker
 * run's send lag and how many of its runs were valid, and the load average before and after.
 * Knobs: BENCH_RATE (1000), BENCH_DURATION_S (6), BENCH_ROUNDS (3), BENCH_VIEWERS (50),
 * BENCH_HEAVY_QUERY=0 (no PostgreSQL load), BENCH_CONNECTIONS (64).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createCaller } from "../packages/api/src/root.ts";
import { LiveSamples } from "../packages/core/src/index.ts";
import { createSession, signUp } from "../packages/db/src/queries/auth.ts";
import { ensureLocalOrganization } from "../packages/db/src/queries/org.ts";
import { allowLoopbackTargets, createTestDatabase } from "../packages/db/src/testing.ts";
import { createQueueFor, createRunsQueue, DEFAULT_REDIS_URL } from "../packages/jobs/src/index.ts";
import {
  type EngineSummary,
  envNumber,
  figuresCell,
  findTool,
  fmt,
  freePort,
  loadAverage,
  median,
  medianFigures,
  ROOT,
  runEngine,
  runOha,
  runVegeta,
  SERVER_CORE,
  startNginx,
  stop,
  type ToolRun,
} from "./lib.ts";

const RATE = envNumber("BENCH_RATE", 1_000);
const DURATION_S = envNumber("BENCH_DURATION_S", 6);
const ROUNDS = envNumber("BENCH_ROUNDS", 3);
const VIEWERS = envNumber("BENCH_VIEWERS", 50);
const CONNECTIONS = envNumber("BENCH_CONNECTIONS", 64);
const HEAVY_QUERY = process.env.BENCH_HEAVY_QUERY !== "0";
/** BENCH_INSTALL_NICE=n: the web app's and PostgreSQL's sessions at autogroup nice n (Linux). */
const INSTALL_NICE = process.env.BENCH_INSTALL_NICE ? Number(process.env.BENCH_INSTALL_NICE) : null;
/** Every core: the install pins nothing. */
const ANY_CORE = process.env.BENCH_ANY_CORES ?? "0,1";
const redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
const prefix = `bbbench-install-${randomBytes(4).toString("hex")}`;
const webDir = path.join(ROOT, "apps/web");
const distDir = process.env.BENCHBOARD_NEXT_DIST_DIR || ".next";
if (!existsSync(path.join(webDir, distDir, "BUILD_ID"))) {
  console.error("build the web app first: pnpm --filter @benchboard/web build");
  process.exit(2);
}

const children: ChildProcess[] = [];
const logs: string[] = [];
function spawnLogged(args: string[], env: Record<string, string>, cwd = ROOT): ChildProcess {
  // A session of its own, as scripts/up.sh starts each process (setsid): where the kernel
  // groups tasks by session (autogroup), each is then its own group, as in an install.
  const child = spawn("taskset", ["-c", ANY_CORE, process.execPath, ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", "pipe"],
    detached: true,
  });
  child.stderr?.on("data", (d) => logs.push(String(d)));
  children.push(child);
  return child;
}
async function until(check: () => Promise<boolean>, what: string, timeoutMs = 120_000) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}\n${logs.join("").slice(-2_000)}`);
}

console.log(
  `single-host install: http-open ${fmt(RATE)} req/s for ${DURATION_S} s, ${ROUNDS} round(s); nginx on core ${SERVER_CORE}, ` +
    `everything else on cores ${ANY_CORE}; ${VIEWERS} live viewers${HEAVY_QUERY ? "; PostgreSQL sorting 2 M rows in a loop" : ""}`,
);
const t = await createTestDatabase();
const db = t.db;
await allowLoopbackTargets(db);
const nginx = await startNginx(SERVER_CORE, "static");
const queue = createRunsQueue(redisUrl, prefix);
const queueFor = createQueueFor(redisUrl, prefix, queue);
const org = await ensureLocalOrganization(db);
const caller = createCaller({ db, queue, queueFor, orgId: org.id, userId: null, role: "owner" });
const account = await signUp(db, { email: "bench@example.com", password: "correct horse battery" });
const session = await createSession(db, account.id);
let heavyRunning = false;
let heavyQueries = 0;
const stopTimers: (() => void)[] = [];
try {
  // The install: the web app's production server and a worker, as scripts/up.sh starts them.
  const webPort = await freePort();
  const start = (JSON.parse(readFileSync(path.join(webDir, "package.json"), "utf8")) as { scripts: { start: string } })
    .scripts.start;
  const nodeFlags = (start.split(" server.mjs")[0] ?? "").split(" ").slice(1).filter(Boolean);
  const webPid = spawnLogged(
    [...nodeFlags, "server.mjs", "-p", String(webPort), "-H", "127.0.0.1"],
    { DATABASE_URL: t.url, REDIS_URL: redisUrl, BENCHBOARD_QUEUE_PREFIX: prefix, NEXT_TELEMETRY_DISABLED: "1" },
    webDir,
  ).pid;
  const baseUrl = `http://127.0.0.1:${webPort}`;
  await until(async () => (await fetch(`${baseUrl}/`)).status < 500, "the web app");
  spawnLogged(["--import", "tsx", path.join(ROOT, "workers/runner/src/index.ts")], {
    DATABASE_URL: t.url,
    REDIS_URL: redisUrl,
    BENCHBOARD_QUEUE_PREFIX: prefix,
    BENCHBOARD_WORKER_ID: "bench-install-worker",
    BENCHBOARD_WORKER_CONCURRENCY: "1",
  });
  await until(async () => (await db.worker.count()) === 1, "the worker");

  const project = await caller.project.create({ name: "Install" });
  const target = await caller.target.create({
    projectId: project.id,
    name: "nginx",
    kind: "http",
    baseUrl: nginx.url.replace(/\/$/, ""),
  });
  const spec = {
    engine: "http-open" as const,
    rate: RATE,
    durationS: DURATION_S,
    warmupS: 1,
    maxConnections: CONNECTIONS,
    timeoutMs: 10_000,
  };
  const scenario = await caller.scenario.create({ projectId: project.id, name: "open", spec: spec as never });

  // A running run the viewers follow, its progress written once a second as a worker would.
  const live = new LiveSamples(() => Date.now());
  const watched = await db.run.create({
    data: {
      orgId: org.id,
      projectId: project.id,
      number: 100_000,
      status: "running",
      scenarioName: "watched",
      startedAt: new Date(),
      heartbeatAt: new Date(),
    },
  });
  let second = 0;
  const tick = setInterval(() => {
    second++;
    const progress = live.add(
      {
        elapsedMs: second * 1000,
        fraction: 0.5,
        requests: second * 1000,
        errors: 0,
        rps: 1000,
        latencyP50Ms: 1,
        latencyP99Ms: 2,
      },
      { mem_bytes: 100_000_000, cpu_cores: 0.3, queue_depth: second % 7 },
    );
    void db.run
      .update({ where: { id: watched.id }, data: { progress: progress as object, heartbeatAt: new Date() } })
      .catch(() => {});
  }, 1_000);
  stopTimers.push(() => clearInterval(tick));
  const viewers = new AbortController();
  stopTimers.push(() => viewers.abort());
  let opened = 0;
  for (let i = 0; i < VIEWERS; i++) {
    void (async () => {
      try {
        const res = await fetch(`${baseUrl}/api/runs/${watched.id}/events`, {
          headers: { cookie: `bb_session=${session.token}` },
          signal: viewers.signal,
        });
        if (!res.ok || !res.body) throw new Error(`stream answered ${res.status}`);
        opened++;
        for await (const _ of res.body) {
          // read and drop, as a browser does once rendered
        }
      } catch (err) {
        if ((err as Error).name !== "AbortError") logs.push(`viewer: ${(err as Error).message}\n`);
      }
    })();
  }
  await until(async () => opened === VIEWERS, `${VIEWERS} viewers`);

  if (HEAVY_QUERY) {
    heavyRunning = true;
    void (async () => {
      while (heavyRunning) {
        await db
          .$queryRawUnsafe(
            "SELECT count(*) FROM (SELECT md5(i::text) AS m FROM generate_series(1, 2000000) AS i ORDER BY m) AS s",
          )
          .catch(() => {});
        heavyQueries++;
      }
    })();
  }
  if (INSTALL_NICE !== null) {
    // The install's services below the load generator: the web app's session and PostgreSQL's
    // (its backends share the postmaster's session) get an autogroup nice value.
    const backend = await db.$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
    for (const pid of [webPid, backend[0]?.pid]) {
      try {
        writeFileSync(`/proc/${pid}/autogroup`, String(INSTALL_NICE));
      } catch (err) {
        console.log(`  could not set the autogroup nice value of ${pid}: ${(err as Error).message}`);
      }
    }
    console.log(`web app and PostgreSQL at autogroup nice ${INSTALL_NICE}`);
  }
  await new Promise((r) => setTimeout(r, 2_000));

  const workerRuns: EngineSummary["metrics"][] = [];
  const workerValid: boolean[] = [];
  const workerReasons: string[] = [];
  const childRuns: EngineSummary[] = [];
  const ohaRuns: ToolRun[] = [];
  const vegetaRuns: ToolRun[] = [];
  const ohaBin = findTool("oha");
  const vegetaBin = findTool("vegeta");
  const loadBefore = loadAverage();
  const tools = [
    async () => {
      const run = await caller.run.launch({ targetId: target.id, scenarioId: scenario.id });
      await until(
        async () => ["succeeded", "failed", "canceled"].includes((await caller.run.byId({ id: run.id })).status),
        "the launched run",
        (DURATION_S + 120) * 1000,
      );
      const done = await caller.run.byId({ id: run.id });
      if (done.status !== "succeeded") workerReasons.push(`run ${done.status}: ${done.error}`);
      const metrics = (done.result?.metrics ?? {}) as Record<string, number>;
      workerRuns.push(metrics);
      workerValid.push(done.result?.valid !== false);
      if (done.result?.valid === false) workerReasons.push(...((done.result.invalidReasons as string[]) ?? []));
    },
    async () => {
      const run = await runEngine(ANY_CORE, spec, nginx.url.replace(/\/$/, "")).catch((e: Error) => e.message);
      if (typeof run !== "string") childRuns.push(run);
    },
    async () => {
      ohaRuns.push(ohaBin ? await runOha(ANY_CORE, ohaBin, nginx.url, RATE, CONNECTIONS, DURATION_S) : null);
    },
    async () => {
      vegetaRuns.push(
        vegetaBin ? await runVegeta(ANY_CORE, vegetaBin, nginx.url, RATE, CONNECTIONS, DURATION_S) : null,
      );
    },
  ];
  for (let round = 0; round < ROUNDS; round++)
    for (let i = 0; i < tools.length; i++) await tools[(round + i) % tools.length]!();
  const loadAfter = loadAverage();

  const asFigures = (m: Record<string, number>[], p50: string, p99: string): ToolRun[] =>
    m.map((x) => ({ p50: x[p50] ?? Number.NaN, p99: x[p99] ?? Number.NaN }));
  const worker = asFigures(workerRuns, "latency_p50", "latency_p99");
  const child = asFigures(
    childRuns.map((r) => r.metrics),
    "latency_p50",
    "latency_p99",
  );
  const w = medianFigures(worker);
  const o = medianFigures(ohaRuns);
  console.log(`\nload average ${loadBefore} → ${loadAfter}; ${heavyQueries} heavy queries ran`);
  console.log(`  worker (launched run)  ${figuresCell(worker)}`);
  console.log(
    `    from send            ${figuresCell(asFigures(workerRuns, "latency_from_send_p50", "latency_from_send_p99"))}`,
  );
  console.log(`  engine alone (child)   ${figuresCell(child)}`);
  console.log(`  oha                    ${figuresCell(ohaRuns)}`);
  console.log(`  vegeta                 ${figuresCell(vegetaRuns)}`);
  const dp50 = w && o ? w.p50 - o.p50 : Number.NaN;
  const r99 = w && o ? w.p99 / o.p99 : Number.NaN;
  const lag = (k: string) => median(workerRuns.map((m) => m[k] ?? Number.NaN));
  console.log(
    `  worker vs oha: p50 ${dp50 >= 0 ? "+" : ""}${fmt(dp50, 3)} ms (goal ≤ 0.1), p99 ×${fmt(r99, 2)} (goal ≤ 1.25); ` +
      `send lag p50 / p99 ${fmt(lag("send_lag_p50"), 3)} / ${fmt(lag("send_lag_p99"), 3)} ms; ` +
      `valid ${workerValid.filter(Boolean).length} of ${workerValid.length} (engine alone: ${childRuns.filter((r) => r.valid).length} of ${childRuns.length})`,
  );
  for (const r of workerReasons) console.log(`  worker run: ${r}`);
  for (const r of [...ohaRuns, ...vegetaRuns]) if (typeof r === "string") console.log(`  ${r}`);
  console.log(
    `\n| condition | load avg | worker p50 / p99 (ranges) | engine alone | oha | vegeta | p50 − oha | p99 / oha | valid |`,
  );
  console.log("| --- | --- | --- | --- | --- | --- | ---: | ---: | --- |");
  console.log(
    `| single-host install, ${fmt(RATE)} req/s, ${VIEWERS} viewers${HEAVY_QUERY ? ", heavy query" : ""} | ${loadBefore.split(",")[0]} → ${loadAfter.split(",")[0]} | ${figuresCell(worker)} | ${figuresCell(child)} | ${figuresCell(ohaRuns)} | ${figuresCell(vegetaRuns)} | ${fmt(dp50, 3)} | ${fmt(r99, 2)} | ${workerValid.filter(Boolean).length} of ${workerValid.length} |`,
  );
} finally {
  heavyRunning = false;
  for (const s of stopTimers) s();
  for (const c of children) await stop(c);
  await nginx.stop();
  await queueFor.closeAll();
  await queue.obliterate({ force: true }).catch(() => {});
  await queue.close();
  await t.drop().catch(() => {});
}
process.exit(0);
