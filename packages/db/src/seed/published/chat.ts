import {
  bestFigure,
  configFigure,
  count,
  deltaFigure,
  type Fig,
  ms,
  rate,
  valueFigure,
  verdictFigure,
} from "./figures";
import type { SeedConfig, SeedProject, SeedRun, SeedTable, SourceDocument } from "./types";

/**
 * The WebSocket chat service on RabbitMQ, tuned over 25 runs, from its published tuning log
 * ("Part 4 — System Tuning Log"), which has no public address: it is cited by its title.
 */
const FILE: SourceDocument = { title: "Part 4 — System Tuning Log" };

export const chatProject: SeedProject = {
  key: "chat",
  slug: "chat-service",
  name: "Chat service (WebSocket + RabbitMQ)",
  description:
    "A WebSocket chat server fanning messages out through RabbitMQ, tuned over 25 runs (published tuning log). Consumer lag < 100 ms is also a stated target, but no run reports consumer lag.",
  // "No message loss (0 failed messages)": nothing failed and nothing owed went undelivered.
  thresholds: [
    { metric: "queue_depth_peak", op: "<", value: 1000 },
    { metric: "message_loss", op: "==", value: 0 },
    { metric: "failed_connections", op: "==", value: 0 },
  ],
  thresholdsCite: { ...FILE, table: "Target metrics" },
};

const INSTANCES: Record<string, { vcpu: number; memoryMb: number }> = {
  "t3.micro": { vcpu: 2, memoryMb: 1024 },
  "t3.small": { vcpu: 2, memoryMb: 2048 },
};

interface ChatRun {
  n: number;
  title: string;
  /** Parameters: as each run's table (or title) states them. */
  pool?: number;
  workers?: number;
  chanSize?: number;
  credits?: number;
  accept?: "Sync" | "Async";
  consumerRate?: number;
  server?: "t3.small" | "t3.micro";
  servers?: number;
  alb?: boolean;
  rabbit: string;
  /** Metrics, as printed. */
  runtime?: string;
  messages?: string;
  failed?: string;
  failedConnections?: string;
  throughput?: string;
  mean?: string;
  median?: string;
  p95?: string;
  p99?: string;
  min?: string;
  max?: string;
  queue?: string;
  room?: string;
  notes: string;
  excluded?: string;
}

/** Deliveries a complete run of the log's fixed scenario makes. */
const EXPECTED_DELIVERIES = "502,000";

// "Config that does NOT change across runs" at the top of the log.
const FIXED_KNOBS = { MessageBuffer: 60_000, tempBufferSize: 2048, InitialCredits: 1000 };
const FIXED_POOL = 1000;

const RUNS: ChatRun[] = [
  {
    n: 1,
    title: "Baseline (pre-tuning)",
    workers: 30,
    chanSize: 4000,
    rabbit: "t3.micro",
    runtime: "205.8s",
    messages: "475,866",
    failed: "0",
    failedConnections: "325",
    throughput: "2,312 msg/s",
    mean: "47,734ms",
    median: "15,478ms",
    p95: "142,424ms",
    p99: "150,687ms",
    queue: "~75,000",
    notes:
      "Queue depth spiked to 75K, server stalled; circuit breaker opened, buffer filled, messages dropped; required a reboot.",
  },
  {
    n: 2,
    title: "Reduce workers + channel size",
    workers: 10,
    chanSize: 500,
    rabbit: "t3.micro",
    queue: "~2,700",
    notes: "Significant improvement over Run 1 but still above the 1,000 target. Server stalled again mid-run.",
  },
  {
    n: 3,
    title: "Reduced workers + smaller channel",
    workers: 10,
    chanSize: 500,
    rabbit: "t3.micro",
    runtime: "724.6s",
    messages: "463,427",
    failed: "0",
    failedConnections: "386",
    throughput: "639.5 msg/s",
    mean: "101,314ms",
    median: "13,824ms",
    p95: "511,045ms",
    p99: "554,539ms",
    notes: "RabbitMQ on t3.micro: TCP write timeouts to the broker tripped the circuit breaker.",
  },
  {
    n: 4,
    title: "Upgraded RabbitMQ to t3.small",
    workers: 10,
    chanSize: 500,
    rabbit: "t3.small",
    runtime: "245.4s",
    messages: "502,000",
    failed: "0",
    failedConnections: "0",
    throughput: "2,045 msg/s",
    mean: "115,918ms",
    median: "120,169ms",
    p95: "125,469ms",
    p99: "128,831ms",
    queue: "~13",
    notes: "All targets met; the tuned baseline config.",
  },
  {
    n: 5,
    title: "Increase workers for flatter queue graph",
    workers: 20,
    chanSize: 500,
    rabbit: "t3.small",
    runtime: "241.6s",
    messages: "502,000",
    failed: "0",
    failedConnections: "0",
    throughput: "2,077 msg/s",
    mean: "116,142ms",
    median: "118,162ms",
    p95: "129,499ms",
    p99: "133,478ms",
    queue: "~22",
    notes: "Marginally better throughput than Run 4; the log calls it the final tuned config.",
  },
  {
    n: 6,
    title: "EC2 Direct | Pool=1000 | Workers=5 | Sync Accept | InitialCredits=50",
    workers: 5,
    chanSize: 500,
    credits: 50,
    accept: "Sync",
    server: "t3.small",
    rabbit: "t3.micro",
    runtime: "313.9s",
    messages: "502,000",
    failed: "0",
    failedConnections: "0",
    throughput: "1,599 msg/s",
    mean: "151,874ms",
    median: "156,351ms",
    p95: "159,206ms",
    p99: "159,585ms",
    room: "82.68 msg/s",
    notes: "Sync Accept with 5 publish workers throttled throughput; queue depth graph TBD (not recorded).",
  },
  {
    n: 7,
    title: "EC2 Direct | Pool=1000 | Workers=20 | Sync Accept | InitialCredits=1000 | ConsumerRate=80",
    workers: 20,
    chanSize: 500,
    credits: 1000,
    accept: "Sync",
    consumerRate: 80,
    server: "t3.small",
    rabbit: "t3.micro",
    runtime: "304.4s",
    messages: "502,000",
    failed: "0",
    failedConnections: "0",
    throughput: "1,649 msg/s",
    mean: "73,518ms",
    median: "74,227ms",
    p95: "77,841ms",
    p99: "79,690ms",
    queue: "~27",
    room: "103.81 msg/s",
    notes: "Sync Accept fixed the AMQP credit exhaustion deadlock; lower throughput, much lower latency.",
  },
  ...[
    [
      8,
      20,
      "240.0s",
      "2,091 msg/s",
      "114,804ms",
      "117,544ms",
      "128,975ms",
      "133,589ms",
      "~20",
      "107.67 msg/s",
      "Best throughput; the log's final tuned config.",
    ],
    [
      9,
      40,
      "241.5s",
      "2,079 msg/s",
      "115,779ms",
      "118,203ms",
      "129,411ms",
      "133,395ms",
      "~35–40",
      "106.96 msg/s",
      "Doubling workers 20→40: no throughput gain, higher queue.",
    ],
    [
      10,
      80,
      "246.4s",
      "2,037 msg/s",
      "117,041ms",
      "118,937ms",
      "130,433ms",
      "134,653ms",
      "~10,000",
      "105.23 msg/s",
      "80 workers overwhelm RabbitMQ: queue ~10K, above target.",
    ],
    [
      11,
      15,
      "253.3s",
      "1,982 msg/s",
      "114,636ms",
      "117,763ms",
      "129,039ms",
      "134,534ms",
      "~20",
      "107.59 msg/s",
      "Fewer workers throttle publish throughput.",
    ],
  ].map(
    ([n, workers, runtime, throughput, mean, median, p95, p99, queue, room, notes]): ChatRun => ({
      n: n as number,
      title: `EC2 Direct | Pool=1000 | Workers=${workers} | Async Accept | ConsumerRate=0`,
      workers: workers as number,
      chanSize: 500,
      credits: 1000,
      accept: "Async",
      consumerRate: 0,
      server: "t3.small",
      rabbit: "t3.micro",
      runtime: runtime as string,
      messages: "502,000",
      failed: "0",
      failedConnections: "0",
      throughput: throughput as string,
      mean: mean as string,
      median: median as string,
      p95: p95 as string,
      p99: p99 as string,
      queue: queue as string,
      room: room as string,
      notes: notes as string,
    }),
  ),
  ...[
    [
      12,
      64,
      "142.9s",
      "3,512 msg/s",
      "4,372ms",
      "4,130ms",
      "7,533ms",
      "9,132ms",
      "~45",
      "1,556.69 msg/s",
      "Dramatic improvement over Pool=1000.",
    ],
    [
      13,
      128,
      "153.1s",
      "3,278 msg/s",
      "9,543ms",
      "10,491ms",
      "16,732ms",
      "18,655ms",
      "~35",
      "796.37 msg/s",
      "Worse than Pool=64 on throughput and latency.",
    ],
    [
      14,
      256,
      "173.8s",
      "2,888 msg/s",
      "20,771ms",
      "20,660ms",
      "30,432ms",
      "33,840ms",
      "~35",
      "406.51 msg/s",
      "Continues the downward trend.",
    ],
    [
      15,
      512,
      "207.3s",
      "2,421 msg/s",
      "47,776ms",
      "47,456ms",
      "65,639ms",
      "68,871ms",
      "~22",
      "213.30 msg/s",
      "Continues the downward trend.",
    ],
    [
      16,
      32,
      "129.4s",
      "3,881 msg/s",
      "2,076ms",
      "1,943ms",
      "3,482ms",
      "4,213ms",
      "~25",
      "2,891.11 msg/s",
      "New best: outperforms Pool=64.",
    ],
    [
      17,
      16,
      "119.1s",
      "4,216 msg/s",
      "917ms",
      "856ms",
      "1,460ms",
      "2,073ms",
      "~30",
      "4,147.92 msg/s",
      "Sub-second mean latency; new best on all metrics.",
    ],
  ].map(
    ([n, pool, runtime, throughput, mean, median, p95, p99, queue, room, notes]): ChatRun => ({
      n: n as number,
      title: `EC2 Direct | Pool=${pool} | Workers=20 | Async Accept`,
      pool: pool as number,
      workers: 20,
      chanSize: 500,
      credits: 1000,
      accept: "Async",
      server: "t3.small",
      rabbit: "t3.micro",
      runtime: runtime as string,
      messages: "502,000",
      failed: "0",
      failedConnections: "0",
      throughput: throughput as string,
      mean: mean as string,
      median: median as string,
      p95: p95 as string,
      p99: p99 as string,
      queue: queue as string,
      room: room as string,
      notes: notes as string,
    }),
  ),
  {
    n: 18,
    title: "EC2 Direct | Pool=1024 | Workers=20 | Async Accept (anomalous)",
    pool: 1024,
    workers: 20,
    accept: "Async",
    server: "t3.small",
    rabbit: "t3.micro",
    runtime: "865.0s",
    messages: "502,000",
    failed: "0",
    failedConnections: "0",
    throughput: "580 msg/s",
    mean: "127,135ms",
    notes: "Dramatically worse than Run 8 (Pool=1000: 240 s, 2,091 msg/s).",
    excluded:
      "Anomalous: stale RabbitMQ queues accumulated from many prior test runs caused broker backpressure; not representative of Pool=1024 (discarded from the sweep summary in the log).",
  },
  {
    n: 19,
    title: "2 Servers (ALB) | Pool=64 | Workers=20 | Async Accept",
    pool: 64,
    workers: 20,
    accept: "Async",
    server: "t3.micro",
    servers: 2,
    alb: true,
    rabbit: "t3.micro",
    runtime: "135.4s",
    messages: "502,000",
    failed: "0",
    failedConnections: "0",
    throughput: "3,708 msg/s",
    mean: "4,182ms",
    median: "4,078ms",
    p95: "7,251ms",
    p99: "10,381ms",
    queue: "~130",
    room: "1,647.40 msg/s",
    notes: "Only +5.6% over a single server (3,708 vs 3,512 msg/s); queue doubles.",
  },
  {
    n: 20,
    title: "2 Servers (ALB) | Pool=64 | Workers=10 | Async Accept",
    pool: 64,
    workers: 10,
    accept: "Async",
    server: "t3.micro",
    servers: 2,
    alb: true,
    rabbit: "t3.micro",
    runtime: "175.3s",
    messages: "502,000",
    failed: "0",
    failedConnections: "0",
    throughput: "2,864 msg/s",
    mean: "5,050ms",
    median: "4,935ms",
    p95: "8,339ms",
    p99: "9,729ms",
    queue: "~40–50",
    room: "1,476.79 msg/s",
    notes: "Halving workers lowered the queue but cost 23% throughput and 29% runtime.",
  },
  {
    n: 21,
    title: "2 Servers (ALB) | Pool=256 | Workers=20 | Async Accept",
    pool: 256,
    workers: 20,
    accept: "Async",
    server: "t3.micro",
    servers: 2,
    alb: true,
    rabbit: "t3.micro",
    runtime: "172.9s",
    messages: "502,000",
    failed: "0",
    failedConnections: "0",
    throughput: "2,904 msg/s",
    mean: "21,335ms",
    median: "25,463ms",
    p95: "32,601ms",
    p99: "35,217ms",
    queue: "~100",
    room: "413.87 msg/s",
    notes: "Essentially identical to single-server Pool=256 (+0.6%).",
  },
  {
    n: 22,
    title: "2 Servers t3.small (ALB) | Pool=1000 | Workers=20 | Async Accept",
    pool: 1000,
    workers: 20,
    accept: "Async",
    server: "t3.small",
    servers: 2,
    alb: true,
    rabbit: "t3.micro",
    runtime: "244.4s",
    messages: "502,000",
    failed: "0",
    failedConnections: "0",
    throughput: "2,054 msg/s",
    mean: "114,410ms",
    median: "117,385ms",
    p95: "128,744ms",
    p99: "133,892ms",
    queue: "~300",
    room: "107.24 msg/s",
    notes: "Effectively identical to single-server Pool=1000 (−1.8%).",
  },
  ...[
    [
      23,
      1,
      "317.2s",
      "1,582.7 msg/s",
      "156,188ms",
      "160,226ms",
      "163,206ms",
      "163,707ms",
      "63,301ms",
      "163,898ms",
      "~10",
      "81.55 msg/s",
      "1-server baseline for the fixed-config scaling comparison.",
    ],
    [
      24,
      2,
      "328.3s",
      "1,529.0 msg/s",
      "152,741ms",
      "156,417ms",
      "163,297ms",
      "163,836ms",
      "49,769ms",
      "164,465ms",
      "~80–100",
      "79.22 msg/s",
      "−3.4% throughput vs 1 server; queue 8–10× higher.",
    ],
    [
      25,
      4,
      "538.1s",
      "933.0 msg/s",
      "254,301ms",
      "258,805ms",
      "267,535ms",
      "268,033ms",
      "78,839ms",
      "268,416ms",
      "~130",
      "47.54 msg/s",
      "Dramatic degradation vs 2 servers.",
    ],
  ].map(
    ([n, servers, runtime, throughput, mean, median, p95, p99, min, max, queue, room, notes]): ChatRun => ({
      n: n as number,
      title: `${servers} Server${servers === 1 ? " (Direct)" : "s (ALB)"} | Pool=1000 | Workers=5${servers === 1 ? "" : "/server"} | t3.small`,
      pool: 1000,
      workers: 5,
      accept: "Async",
      server: "t3.small",
      servers: servers as number,
      alb: servers !== 1,
      rabbit: "t3.medium",
      runtime: runtime as string,
      messages: "502,000",
      failed: "0",
      failedConnections: "0",
      throughput: throughput as string,
      mean: mean as string,
      median: median as string,
      p95: p95 as string,
      p99: p99 as string,
      min: min as string,
      max: max as string,
      queue: queue as string,
      room: room as string,
      notes: notes as string,
    }),
  ),
];

function config(run: ChatRun): SeedConfig {
  const knobs: SeedConfig["knobs"] = { ...FIXED_KNOBS };
  if (run.workers !== undefined) knobs.PUBLISH_WORKERS = run.workers;
  if (run.chanSize !== undefined) knobs.publishChanSize = run.chanSize;
  if (run.credits !== undefined) knobs.InitialCredits = run.credits;
  if (run.accept) knobs.AcceptMode = run.accept;
  if (run.consumerRate !== undefined) knobs.CONSUMER_RATE = run.consumerRate;
  knobs.rabbitmq_instance = run.rabbit;
  if (run.alb !== undefined) knobs.load_balancer = run.alb ? "ALB" : "none (direct)";
  const servers = run.servers ?? 1;
  const parts = [
    `${servers}× ${run.server ?? "server (type not noted)"}`,
    run.workers !== undefined && `${run.workers} workers`,
    run.chanSize !== undefined && `chan ${run.chanSize}`,
    run.credits !== undefined && run.credits !== FIXED_KNOBS.InitialCredits && `credits ${run.credits}`,
    run.accept && `${run.accept.toLowerCase()} accept`,
    run.consumerRate !== undefined && `consumer rate ${run.consumerRate}`,
    `RabbitMQ ${run.rabbit}`,
    run.alb && "ALB",
  ].filter(Boolean);
  return {
    name: parts.join(" · "),
    ...(run.server ? { instanceType: run.server, ...INSTANCES[run.server] } : {}),
    replicas: servers,
    knobs,
  };
}

function metrics(run: ChatRun): Record<string, Fig> {
  const out: Record<string, Fig> = {};
  const put = (key: string, text: string | undefined, read: (t: string) => Fig) => {
    if (text !== undefined) out[key] = read(text);
  };
  put("runtime_ms", run.runtime, ms);
  put("messages", run.messages, count);
  // Every complete run of this scenario delivers 502,000 messages (Run 4: "502K/502K messages
  // delivered"); a run that delivered fewer lost the rest, whatever its failed count says.
  if (run.messages !== undefined) put("expected_deliveries", EXPECTED_DELIVERIES, count);
  put("failed", run.failed, count);
  put("failed_connections", run.failedConnections, count);
  put("latency_mean", run.mean, ms);
  put("latency_p50", run.median, ms);
  put("latency_p95", run.p95, ms);
  put("latency_p99", run.p99, ms);
  put("latency_min", run.min, ms);
  put("latency_max", run.max, ms);
  put("queue_depth_peak", run.queue, count);
  put("custom.room_throughput_median", run.room, rate);
  return out;
}

const SCENARIO = "50 users × 500 messages in 20 rooms";

export const chatRuns: SeedRun[] = RUNS.map(
  (run): SeedRun => ({
    key: `chat#${run.n}`,
    project: "chat",
    number: run.n,
    label: `Run ${run.n}`,
    cite: { ...FILE, table: `Run ${run.n} — ${run.title}` },
    scenario: {
      name: SCENARIO,
      engine: "ws-chat",
      spec: { engine: "ws-chat", users: 50, rooms: 20, messagesPerUser: 500, poolSize: run.pool ?? FIXED_POOL },
    },
    config: config(run),
    metrics: metrics(run),
    printed: run.throughput ? { throughput: rate(run.throughput) } : {},
    ...(run.excluded ? { excludedReason: run.excluded } : {}),
    notes: run.notes,
    tags: ["published", run.n <= 5 ? "pre-tuning" : run.servers && run.servers > 1 ? "scaling" : "single server"],
  }),
);

const byNumber = new Map(RUNS.map((r) => [r.n, r]));
const key = (n: number) => `chat#${n}`;
const printed = (n: number, field: keyof ChatRun) => byNumber.get(n)?.[field] as string;

function rows(ns: number[], label: string, metric: string, field: keyof ChatRun, read: (t: string) => Fig) {
  return ns.map((n) => valueFigure(label, key(n), metric, read(printed(n, field))));
}

export const chatTables: SeedTable[] = [
  {
    key: "chat-worker-sweep",
    kind: "sweep",
    project: "chat",
    title: "Worker sweep (Runs 8–11)",
    cite: { ...FILE, table: "Worker Sweep Summary (Runs 8–11)" },
    note: "Only the optimal row's ✓ survives in the document; the other rows' marks were lost, so they are not checked.",
    runs: [key(11), key(8), key(9), key(10)],
    sweep: { parameter: "knobs.PUBLISH_WORKERS", metric: "throughput", owns: [key(8), key(9), key(10), key(11)] },
    figures: [
      ...[
        [11, 15],
        [8, 20],
        [9, 40],
        [10, 80],
      ].map(([n, w]) => configFigure("Workers", key(n!), "knobs.PUBLISH_WORKERS", String(w), w!)),
      ...rows([11, 8, 9, 10], "Throughput", "throughput", "throughput", rate),
      ...rows([11, 8, 9, 10], "Peak Queue", "queue_depth_peak", "queue", count),
      verdictFigure("Meets Target", key(8), "✓", true),
      bestFigure("Optimal", key(8), "✓ ← optimal"),
    ],
  },
  {
    key: "chat-pool-sweep",
    kind: "sweep",
    project: "chat",
    title: "Pool sweep (Runs 12–17)",
    cite: { ...FILE, table: "Pool Sweep Summary (Runs 12–17)" },
    note: "The 1,000 row is Run 8 from the worker sweep. Run 18 (Pool=1024) is excluded as anomalous, as in the log. Only the optimal row's ✓ survives in the document.",
    runs: [key(17), key(16), key(12), key(13), key(14), key(15), key(8), key(18)],
    sweep: {
      parameter: "scenario.poolSize",
      metric: "throughput",
      owns: [key(12), key(13), key(14), key(15), key(16), key(17), key(18)],
    },
    figures: [
      ...[
        [17, 16],
        [16, 32],
        [12, 64],
        [13, 128],
        [14, 256],
        [15, 512],
        [8, 1000],
      ].map(([n, p]) => configFigure("PoolSize", key(n!), "scenario.poolSize", p!.toLocaleString("en-US"), p!)),
      ...rows([17, 16, 12, 13, 14, 15, 8], "Throughput", "throughput", "throughput", rate),
      ...rows([17, 16, 12, 13, 14, 15, 8], "Mean Latency", "latency_mean", "mean", ms),
      ...rows([17, 16, 12, 13, 14, 15, 8], "Peak Queue", "queue_depth_peak", "queue", count),
      verdictFigure("Meets Target", key(17), "✓", true),
      bestFigure("Optimal", key(17), "✓ ← optimal so far"),
    ],
  },
  {
    key: "chat-two-server",
    kind: "comparison",
    project: "chat",
    title: "2-server scaling (Runs 19–20)",
    cite: { ...FILE, table: "2-Server Scaling Summary (Runs 19–20)" },
    note: "Total publishers = workers per server × 2 servers (40 and 20).",
    runs: [key(19), key(20)],
    baseline: key(19),
    figures: [
      configFigure("Workers/server", key(19), "knobs.PUBLISH_WORKERS", "20", 20),
      configFigure("Workers/server", key(20), "knobs.PUBLISH_WORKERS", "10", 10),
      configFigure("Servers", key(19), "config.replicas", "2", 2),
      configFigure("Servers", key(20), "config.replicas", "2", 2),
      ...rows([19, 20], "Throughput", "throughput", "throughput", rate),
      ...rows([19, 20], "Peak Queue", "queue_depth_peak", "queue", count),
      deltaFigure("Notes: throughput", key(20), key(19), "throughput", "lower queue but 23% slower", "-23%"),
      deltaFigure("Run 20 notes: runtime", key(20), key(19), "runtime_ms", "increased runtime 29%", "+29%"),
    ],
  },
  {
    key: "chat-scaling-final",
    kind: "comparison",
    project: "chat",
    title: "Final summary — 2-server scaling (all runs)",
    cite: { ...FILE, table: "Final Summary — 2-Server Scaling (All Runs)" },
    runs: [key(8), key(22), key(14), key(21), key(12), key(19)],
    baseline: key(8),
    figures: [
      ...[
        [8, 1000, 1, "t3.small"],
        [22, 1000, 2, "t3.small"],
        [14, 256, 1, "t3.small"],
        [21, 256, 2, "t3.micro"],
        [12, 64, 1, "t3.small"],
        [19, 64, 2, "t3.micro"],
      ].flatMap(([n, pool, servers, instance]) => [
        configFigure(
          "PoolSize",
          key(n as number),
          "scenario.poolSize",
          (pool as number).toLocaleString("en-US"),
          pool as number,
        ),
        configFigure("Servers", key(n as number), "config.replicas", String(servers), servers as number),
        configFigure("Instance", key(n as number), "config.instanceType", instance as string, instance as string),
      ]),
      ...rows([8, 22, 14, 21, 12, 19], "Throughput", "throughput", "throughput", rate),
      ...rows([8, 22, 14, 21, 12, 19], "Mean Latency", "latency_mean", "mean", ms),
      ...rows([8, 22, 14, 21, 12, 19], "Peak Queue", "queue_depth_peak", "queue", count),
      deltaFigure("Run 12 notes: throughput vs Pool=1000", key(12), key(8), "throughput", "Throughput +68%", "+68%"),
      deltaFigure("Run 12 notes: runtime vs Pool=1000", key(12), key(8), "runtime_ms", "runtime cut by 40%", "-40%"),
      deltaFigure("Run 19 notes: vs single server", key(19), key(12), "throughput", "+5.6% throughput gain", "+5.6%"),
      deltaFigure("Run 21 notes: vs single server", key(21), key(14), "throughput", "+0.6% throughput gain", "+0.6%"),
      deltaFigure("Run 22 notes: vs single server", key(22), key(8), "throughput", "-1.8% throughput", "-1.8%"),
    ],
  },
  {
    key: "chat-fixed-scaling",
    kind: "sweep",
    project: "chat",
    title: "Fixed-config scaling: 1, 2 and 4 servers (Runs 23–25)",
    cite: { ...FILE, table: "Fixed-Config Scaling Summary (Runs 23–25)" },
    note: "Total publishers = 5 workers per server × servers (5, 10, 20).",
    runs: [key(23), key(24), key(25)],
    sweep: { parameter: "config.replicas", metric: "throughput", owns: [key(23), key(24), key(25)] },
    figures: [
      ...[
        [23, 1],
        [24, 2],
        [25, 4],
      ].map(([n, s]) => configFigure("Servers", key(n!), "config.replicas", String(s), s!)),
      ...rows([23, 24, 25], "Runtime", "runtime_ms", "runtime", ms),
      ...rows([23, 24, 25], "Throughput", "throughput", "throughput", rate),
      deltaFigure("vs 1S", key(24), key(23), "throughput", "-3.4%", "-3.4%"),
      deltaFigure("vs 1S", key(25), key(23), "throughput", "-41.0%", "-41.0%"),
      ...rows([23, 24, 25], "Mean latency", "latency_mean", "mean", ms),
      ...rows([23, 24, 25], "Peak queue", "queue_depth_peak", "queue", count),
      deltaFigure("Run 25 notes: throughput vs 2 servers", key(25), key(24), "throughput", "-39% throughput", "-39%"),
      deltaFigure("Run 25 notes: latency vs 2 servers", key(25), key(24), "latency_mean", "+69% latency", "+69%"),
    ],
  },
  {
    key: "chat-tuned-summary",
    kind: "comparison",
    project: "chat",
    title: "Summary — tuned config (published summary vs Runs 5 and 8)",
    cite: { ...FILE, table: "Summary — Tuned Config" },
    note: "The summary's configuration (async accept, consumer rate 0, RabbitMQ t3.micro) is Run 8's, but its throughput and peak queue are Run 5's. Both runs are checked against it.",
    runs: [key(5), key(8)],
    baseline: key(5),
    figures: [5, 8].flatMap((n) => [
      configFigure("PUBLISH_WORKERS", key(n), "knobs.PUBLISH_WORKERS", "20", 20),
      configFigure("publishChanSize", key(n), "knobs.publishChanSize", "500", 500),
      configFigure("Chat server", key(n), "config.instanceType", "t3.small", "t3.small"),
      configFigure("RabbitMQ instance", key(n), "knobs.rabbitmq_instance", "t3.micro", "t3.micro"),
      configFigure("Accept mode", key(n), "knobs.AcceptMode", "Async", "Async"),
      configFigure("CONSUMER_RATE", key(n), "knobs.CONSUMER_RATE", "0 (unlimited)", 0),
      valueFigure("Peak queue depth", key(n), "queue_depth_peak", count("~22")),
      valueFigure("Throughput", key(n), "throughput", rate("2,077 msg/s")),
      valueFigure("Failed messages", key(n), "failed", count("0")),
      valueFigure("Failed connections", key(n), "failed_connections", count("0")),
    ]),
  },
];
