import { type TMonitorConfigInput, type TScenarioSpecInput, ZMonitorConfig, ZScenarioSpec } from "@benchboard/core";
import type { Db } from "../client";
import { Prisma } from "../generated/prisma/client";
import type { TargetKind } from "../generated/prisma/enums";

/**
 * Demo projects for the reference targets that the quick start runs on this machine
 * (apps/targets): each with its target, monitors, instance configs and ready-to-launch
 * scenarios. Idempotent: existing rows (matched by name) are left as the user changed them.
 */
export interface ReferenceTargetPorts {
  host: string;
  gateway: number;
  chat: number;
  examples: number;
  rabbitManagement: string;
}

export const DEFAULT_PORTS: ReferenceTargetPorts = {
  host: "127.0.0.1",
  gateway: 4100,
  chat: 4200,
  examples: 4300,
  rabbitManagement: "http://127.0.0.1:15672",
};

interface DemoProject {
  name: string;
  description: string;
  target: {
    name: string;
    kind: TargetKind;
    baseUrl: string;
    configApplyUrl: string;
    /** The service's default knobs: what a run without an instance config sets it to. */
    baselineKnobs: Record<string, string | number | boolean>;
    monitors: TMonitorConfigInput[];
    /** Server-Timing stages that are the service's own work (its overhead). */
    overheadStages?: string[];
  };
  configs: {
    name: string;
    instanceType?: string;
    vcpu?: number;
    memoryMb?: number;
    cpuLimit?: number;
    knobs: Record<string, string | number | boolean>;
  }[];
  scenarios: {
    name: string;
    description: string;
    spec: TScenarioSpecInput;
    thresholds?: { metric: string; op: "<" | "<=" | ">" | ">=" | "=="; value: number }[];
  }[];
}

/**
 * The reference targets' default knobs (apps/targets: gateway/config.ts, chat/config.ts,
 * examples/config.ts), their baselines: a run without an instance config sets them.
 */
export const GATEWAY_DEFAULTS = {
  buffer_size: 5_000,
  initial_pool_size: 5_000,
  concurrency: 1_000,
  drop_excess_requests: false,
  latency_ms: 50,
  jitter_ms: 0,
  error_rate: 0,
  big_payload: false,
  tokens_per_chunk: 5,
};
export const CHAT_DEFAULTS = {
  PUBLISH_WORKERS: 20,
  publishChanSize: 500,
  InitialCredits: 1_000,
  CONSUMER_RATE: 0,
  publishDropWhenFull: false,
};
export const EXAMPLES_DEFAULTS = {
  db_pool_size: 10,
  max_concurrent_resizes: 4,
  image_threads: 0,
  png_compression_level: 6,
};

/**
 * The gateway's Server-Timing stages (apps/targets gateway/config.ts `STAGES`) that are its own
 * work: everything but `upstream_request`, the wait on the provider.
 */
export const GATEWAY_OVERHEAD_STAGES = [
  "queue_wait",
  "key_selection",
  "request_preparation",
  "json_marshaling",
  "response_parsing",
];

export function referenceProjects(p: ReferenceTargetPorts = DEFAULT_PORTS): DemoProject[] {
  const url = (port: number) => `http://${p.host}:${port}`;
  return [
    {
      name: "LLM gateway (local)",
      description:
        "The reference OpenAI-compatible gateway with a mock provider, mirroring the published Bifrost benchmarks.",
      target: {
        name: "gateway",
        kind: "llm",
        baseUrl: url(p.gateway),
        configApplyUrl: `${url(p.gateway)}/admin/config`,
        baselineKnobs: GATEWAY_DEFAULTS,
        overheadStages: GATEWAY_OVERHEAD_STAGES,
        monitors: [
          {
            kind: "prometheus",
            url: `${url(p.gateway)}/metrics`,
            gauges: [
              { name: "queue_depth", metric: "gateway_queue_depth" },
              { name: "active_workers", metric: "gateway_active_workers" },
            ],
          },
        ],
      },
      configs: [
        {
          name: "t3.medium profile",
          instanceType: "t3.medium",
          vcpu: 2,
          memoryMb: 4096,
          knobs: { buffer_size: 15000, initial_pool_size: 10000, latency_ms: 50, big_payload: false },
        },
        {
          name: "t3.xlarge profile",
          instanceType: "t3.xlarge",
          vcpu: 4,
          memoryMb: 16384,
          knobs: { buffer_size: 20000, initial_pool_size: 15000, latency_ms: 50, big_payload: true },
        },
      ],
      scenarios: [
        {
          name: "300 req/s non-streaming, 20 s",
          description: "Fixed arrival rate of chat completions; latency from the scheduled send time.",
          spec: { engine: "llm", rate: 300, durationS: 20, stream: false, maxTokens: 150 },
          thresholds: [
            { metric: "failed", op: "==", value: 0 },
            { metric: "latency_p99", op: "<", value: 500 },
          ],
        },
        {
          name: "100 req/s streaming, 20 s",
          description: "Streaming completions: time to first token, inter-token latency, tokens/s.",
          spec: { engine: "llm", rate: 100, durationS: 20, stream: true, maxTokens: 150 },
        },
      ],
    },
    {
      name: "Chat service (local)",
      description:
        "The reference WebSocket chat server fanning messages out through RabbitMQ, as in the chat tuning log.",
      target: {
        name: "chat",
        kind: "ws_chat",
        baseUrl: url(p.chat),
        configApplyUrl: `${url(p.chat)}/admin/config`,
        baselineKnobs: CHAT_DEFAULTS,
        monitors: [
          {
            kind: "prometheus",
            url: `${url(p.chat)}/metrics`,
            gauges: [{ name: "publish_queue_depth", metric: "chat_publish_queue_depth" }],
          },
          { kind: "rabbitmq", url: p.rabbitManagement, queues: [`chat.instance.${p.chat}`] },
        ],
      },
      configs: [
        { name: "20 publish workers", knobs: { PUBLISH_WORKERS: 20, publishChanSize: 500, InitialCredits: 1000 } },
        { name: "80 publish workers", knobs: { PUBLISH_WORKERS: 80, publishChanSize: 500, InitialCredits: 1000 } },
      ],
      scenarios: [
        {
          name: "100 users × 10 rooms × 20 messages",
          description: "Every message is delivered to each other member of its room; lost messages are counted.",
          spec: { engine: "ws-chat", users: 100, rooms: 10, messagesPerUser: 20, poolSize: 50 },
          thresholds: [{ metric: "failed", op: "==", value: 0 }],
        },
        {
          name: "100 users × 10 rooms, chatting for 20 s",
          description:
            "Each user sends a message every 500 ms until the 20 s are over, long enough to watch the run live.",
          spec: {
            engine: "ws-chat",
            users: 100,
            rooms: 10,
            messagesPerUser: 40,
            messageIntervalMs: 500,
            poolSize: 50,
            durationS: 20,
            endsAfter: "duration",
          },
          thresholds: [{ metric: "failed", op: "==", value: 0 }],
        },
      ],
    },
    {
      name: "Example apps (local)",
      description: "Light (static files), medium (500 customers from PostgreSQL) and heavy (image resize) endpoints.",
      target: {
        name: "examples",
        kind: "http",
        baseUrl: url(p.examples),
        configApplyUrl: `${url(p.examples)}/admin/config`,
        baselineKnobs: EXAMPLES_DEFAULTS,
        monitors: [{ kind: "prometheus", url: `${url(p.examples)}/metrics` }],
      },
      configs: [{ name: "local, no CPU limit", knobs: {} }],
      scenarios: [
        {
          name: "light: GET / × 2,000 at 20 concurrent",
          description: "A few small static files.",
          spec: {
            engine: "http-closed",
            concurrency: 20,
            requests: 2000,
            request: { method: "GET", path: "/", headers: {} },
          },
        },
        {
          name: "medium: customers × 500 at 10 concurrent",
          description:
            "Looks up one user's 500 customers in PostgreSQL: a POST that carries the user's email and only reads, as in the published benchmark.",
          spec: {
            engine: "http-closed",
            concurrency: 10,
            requests: 500,
            request: {
              method: "POST",
              path: "/api/customers",
              headers: { "content-type": "application/json" },
              body: '{"email":"test@example.com"}',
            },
          },
        },
        {
          name: "heavy: resize 200×200 × 100 at 4 concurrent",
          description: "Image resize of a bundled image.",
          spec: {
            engine: "http-closed",
            concurrency: 4,
            requests: 100,
            request: { method: "GET", path: "/200/200", headers: {} },
          },
        },
      ],
    },
  ];
}

export async function seedReferenceTargets(
  db: Db,
  orgId: string,
  ports: ReferenceTargetPorts = DEFAULT_PORTS,
): Promise<void> {
  for (const demo of referenceProjects(ports)) {
    const slug = demo.name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "");
    const project = await db.project.upsert({
      where: { orgId_slug: { orgId, slug } },
      update: {},
      create: { orgId, name: demo.name, slug, description: demo.description },
    });
    const monitors = demo.target.monitors.map((m) => ZMonitorConfig.parse(m));
    // The RabbitMQ monitor's password is a secret: stored configs carry no password field.
    const storedMonitors = monitors.map((m) => (m.kind === "rabbitmq" ? { ...m, password: undefined } : m));
    await db.target.upsert({
      where: { projectId_name: { projectId: project.id, name: demo.target.name } },
      update: {},
      create: {
        orgId,
        projectId: project.id,
        name: demo.target.name,
        kind: demo.target.kind,
        baseUrl: demo.target.baseUrl,
        configApplyUrl: demo.target.configApplyUrl,
        baselineKnobs: demo.target.baselineKnobs,
        monitors: JSON.parse(JSON.stringify(storedMonitors)),
        overheadStages: demo.target.overheadStages ?? [],
      },
    });
    // Targets seeded before baselines existed get theirs; one set since is left as it is.
    await db.target.updateMany({
      where: { projectId: project.id, name: demo.target.name, baselineKnobs: { equals: Prisma.DbNull } },
      data: { baselineKnobs: demo.target.baselineKnobs },
    });
    for (const c of demo.configs) {
      await db.instanceConfig.upsert({
        where: { projectId_name: { projectId: project.id, name: c.name } },
        update: {},
        create: {
          orgId,
          projectId: project.id,
          name: c.name,
          instanceType: c.instanceType ?? null,
          vcpu: c.vcpu ?? null,
          memoryMb: c.memoryMb ?? null,
          cpuLimit: c.cpuLimit ?? null,
          knobs: c.knobs,
        },
      });
    }
    for (const s of demo.scenarios) {
      const spec = ZScenarioSpec.parse(s.spec);
      await db.scenario.upsert({
        where: { projectId_name: { projectId: project.id, name: s.name } },
        update: {},
        create: {
          orgId,
          projectId: project.id,
          name: s.name,
          engine: spec.engine,
          spec: JSON.parse(JSON.stringify(spec)),
          thresholds: s.thresholds ?? [],
          description: s.description,
        },
      });
    }
  }
}
