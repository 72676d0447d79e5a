import type { IncomingMessage, ServerResponse } from "node:http";
import { ConfigStore, registerAdminConfigRoutes } from "../lib/config-store";
import {
  closeServer,
  createHttpServer,
  HttpError,
  listen,
  onResponseEnd,
  Router,
  readJson,
  sendJson,
} from "../lib/http";
import { DURATION_BUCKETS_SECONDS, PROMETHEUS_CONTENT_TYPE, Registry, registerProcessMetrics } from "../lib/metrics";
import { formatServerTiming } from "../lib/server-timing";
import { WorkerPool } from "../lib/worker-pool";
import { STAGES, type Stage, type TChatCompletionRequest, ZChatCompletionRequest, ZGatewayConfig } from "./config";
import { ContextPool } from "./context-pool";
import { MockProvider, ProviderError, type UpstreamRequest } from "./mock-provider";

export interface GatewayOptions {
  port?: number;
  host?: string;
  /** Knobs at startup (validated like `PUT /admin/config`). */
  config?: unknown;
}

export interface Gateway {
  url: string;
  port: number;
  config: ConfigStore<typeof ZGatewayConfig>;
  close(graceMs?: number): Promise<void>;
}

interface Job {
  request: TChatCompletionRequest;
  res: ServerResponse;
  /** When the request was accepted; queue wait runs from here to a worker picking it up. */
  arrivedAt: number;
  canceled: boolean;
  finished: () => void;
}

/** Weighted provider keys, as Bifrost selects among a provider's API keys. */
const KEYS = [
  { id: "mock-key-1", weight: 0.6 },
  { id: "mock-key-2", weight: 0.3 },
  { id: "mock-key-3", weight: 0.1 },
] as const;

const REQUEST_BODY_LIMIT = 4 * 1024 * 1024;
const DONE_FRAME = "data: [DONE]\n\n";

export async function startGateway(options: GatewayOptions = {}): Promise<Gateway> {
  const config = new ConfigStore(ZGatewayConfig, options.config ?? {});
  const registry = new Registry();
  registerProcessMetrics(registry, "gateway");
  const provider = new MockProvider(() => config.get());
  const contexts = new ContextPool(config.get().initial_pool_size, config.get().concurrency);

  const requests = registry.counter<"status" | "stream">({
    name: "gateway_requests_total",
    help: "Chat completion requests answered, by HTTP status and streaming mode.",
    labelNames: ["status", "stream"],
  });
  const dropped = registry.counter({
    name: "gateway_dropped_requests_total",
    help: "Requests refused with 503 because the queue was full and drop_excess_requests is on.",
  });
  const canceled = registry.counter({
    name: "gateway_canceled_requests_total",
    help: "Requests whose client went away before the answer was complete.",
  });
  const upstreamErrors = registry.counter({
    name: "gateway_upstream_errors_total",
    help: "Upstream (mock provider) calls that failed.",
  });
  const keySelections = registry.counter<"key">({
    name: "gateway_key_selections_total",
    help: "Provider key chosen per upstream call.",
    labelNames: ["key"],
  });
  const stageDuration = registry.histogram<"stage">({
    name: "gateway_stage_duration_seconds",
    help: "Time spent per request in each gateway stage (the stages of the Server-Timing header).",
    labelNames: ["stage"],
    buckets: DURATION_BUCKETS_SECONDS,
  });
  const requestDuration = registry.histogram<"stream">({
    name: "gateway_request_duration_seconds",
    help: "Time from accepting a request to the end of its answer.",
    labelNames: ["stream"],
    buckets: DURATION_BUCKETS_SECONDS,
  });
  const responseBytes = registry.counter({
    name: "gateway_response_bytes_total",
    help: "Bytes of completion bodies sent (SSE framing included).",
  });

  const handle = async (job: Job): Promise<void> => {
    try {
      if (job.canceled) {
        canceled.inc();
        return;
      }
      await serve(job);
    } finally {
      job.finished();
    }
  };
  const pool = new WorkerPool<Job>(handle, {
    capacity: config.get().buffer_size,
    workers: config.get().concurrency,
    name: "gateway",
  });

  registry.gauge({
    name: "gateway_queue_depth",
    help: "Requests waiting in the gateway queue for a worker.",
    collect: () => pool.depth,
  });
  registry.gauge({
    name: "gateway_queue_capacity",
    help: "Queue size (buffer_size).",
    collect: () => pool.queueCapacity,
  });
  registry.gauge({
    name: "gateway_queue_blocked",
    help: "Requests waiting for room in a full queue (drop_excess_requests off).",
    collect: () => pool.blockedCount,
  });
  registry.gauge({
    name: "gateway_active_workers",
    help: "Workers busy with a request.",
    collect: () => pool.busy,
  });
  registry.gauge({
    name: "gateway_workers",
    help: "Workers running (concurrency).",
    collect: () => pool.workers,
  });
  registry.gauge<"state">({
    name: "gateway_pool_contexts",
    help: "Pooled request contexts, idle or in use.",
    labelNames: ["state"],
    collect: () => [
      { labels: { state: "idle" }, value: contexts.idleCount },
      { labels: { state: "in_use" }, value: contexts.inUse },
    ],
  });

  config.onChange((next) => {
    pool.setCapacity(next.buffer_size);
    pool.setWorkers(next.concurrency);
    contexts.resize(next.initial_pool_size, next.concurrency);
  });

  async function serve(job: Job): Promise<void> {
    const { request, res } = job;
    const stream = request.stream === true;
    const stages = new Map<Stage, number>();
    const abort = new AbortController();
    const onClose = () => abort.abort();
    res.once("close", onClose);

    let mark = performance.now();
    stages.set("queue_wait", mark - job.arrivedAt);
    const lap = (stage: Stage) => {
      const now = performance.now();
      stages.set(stage, (stages.get(stage) ?? 0) + (now - mark));
      mark = now;
    };

    const context = contexts.acquire();
    try {
      const key = selectKey();
      keySelections.inc({ key });
      lap("key_selection");

      const upstreamRequest = prepareUpstreamRequest(request, stream);
      lap("request_preparation");

      const upstreamBody = JSON.stringify(upstreamRequest);
      lap("json_marshaling");

      if (!stream) {
        await provider.complete(upstreamBody, (text) => context.write(text), abort.signal);
        lap("upstream_request");
        // Parsing covers reading the provider's body and converting it to the gateway's answer.
        const parsed = JSON.parse(context.text()) as Record<string, unknown>;
        const answer = JSON.stringify(toGatewayCompletion(parsed));
        lap("response_parsing");
        const body = Buffer.from(answer);
        res.writeHead(200, {
          "content-type": "application/json",
          "content-length": body.length,
          "server-timing": timingHeader(stages),
        });
        res.end(body);
        responseBytes.inc(undefined, body.length);
      } else {
        let first = true;
        for await (const chunk of provider.stream(upstreamBody, abort.signal)) {
          if (first) lap("upstream_request");
          const frame = `data: ${JSON.stringify(toGatewayChunk(JSON.parse(chunk) as Record<string, unknown>))}\n\n`;
          lap("response_parsing");
          if (first) {
            // The header can only carry what is known at the first byte; the complete stage
            // times follow as a trailer once the stream ends.
            res.writeHead(200, {
              "content-type": "text/event-stream",
              "cache-control": "no-cache",
              "server-timing": timingHeader(stages),
              trailer: "Server-Timing",
            });
            first = false;
          }
          responseBytes.inc(undefined, Buffer.byteLength(frame));
          if (!res.write(frame)) await waitForDrain(res, abort.signal);
          // Time spent waiting on the upstream's next chunk is not parsing.
          mark = performance.now();
        }
        res.write(DONE_FRAME);
        responseBytes.inc(undefined, DONE_FRAME.length);
        res.addTrailers({ "Server-Timing": timingHeader(stages) });
        res.end();
      }
    } catch (error) {
      if (abort.signal.aborted) {
        canceled.inc();
        return;
      }
      if (error instanceof ProviderError) {
        lap("upstream_request");
        upstreamErrors.inc();
        if (!res.headersSent) {
          const body = Buffer.from(upstreamErrorBody(error));
          lap("response_parsing");
          res.writeHead(error.status, {
            "content-type": "application/json",
            "content-length": body.length,
            "server-timing": timingHeader(stages),
          });
          res.end(body);
        } else res.destroy();
        return;
      }
      throw error;
    } finally {
      res.off("close", onClose);
      contexts.release(context);
      for (const [stage, ms] of stages) stageDuration.observe(ms / 1000, { stage });
      requestDuration.observe((performance.now() - job.arrivedAt) / 1000, { stream: String(stream) });
    }
  }

  const router = new Router((error, { res }) => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (error instanceof HttpError) {
      sendJson(
        res,
        error.status,
        openAiError(error.message, error.details.type ?? "invalid_request_error", error.details.field),
        error.details.headers,
      );
      return;
    }
    console.error("[gateway]", error);
    sendJson(res, 500, openAiError("internal error", "server_error"));
  });

  router.get("/health", ({ res }) =>
    sendJson(res, 200, { status: "ok", queueDepth: pool.depth, activeWorkers: pool.busy, workers: pool.workers }),
  );
  router.get("/metrics", ({ res }) => {
    const body = registry.expose();
    res.writeHead(200, { "content-type": PROMETHEUS_CONTENT_TYPE, "content-length": Buffer.byteLength(body) });
    res.end(body);
  });
  registerAdminConfigRoutes(router, config);
  router.get("/v1/models", ({ res }) =>
    sendJson(res, 200, {
      object: "list",
      data: ["gpt-4o-mini", "gpt-4o"].map((id) => ({ id, object: "model", created: 1_700_000_000, owned_by: "mock" })),
    }),
  );
  router.post("/v1/chat/completions", async ({ req, res }) => {
    let stream = false;
    onResponseEnd(res, () => requests.inc({ status: res.statusCode, stream: String(stream) }));
    const request = await parseCompletionRequest(req);
    stream = request.stream === true;
    let finished!: () => void;
    const done = new Promise<void>((resolve) => {
      finished = resolve;
    });
    const job: Job = { request, res, arrivedAt: performance.now(), canceled: false, finished };
    const gone = new AbortController();
    res.once("close", () => {
      if (!res.writableFinished) {
        job.canceled = true;
        gone.abort();
      }
    });
    if (config.get().drop_excess_requests) {
      if (!pool.offer(job)) {
        dropped.inc();
        throw new HttpError(503, "request dropped: the gateway queue is full", {
          type: "server_overloaded",
          field: "buffer_size",
          headers: { "retry-after": "1" },
        });
      }
    } else {
      try {
        await pool.put(job, gone.signal);
      } catch {
        canceled.inc();
        return;
      }
    }
    await done;
  });

  const server = createHttpServer(router);
  const listening = await listen(server, options.port ?? 4100, options.host ?? "127.0.0.1");
  return {
    url: listening.url,
    port: listening.port,
    config,
    async close(graceMs = 5_000) {
      await closeServer(server, graceMs);
      pool.setWorkers(0);
    },
  };
}

async function parseCompletionRequest(req: IncomingMessage): Promise<TChatCompletionRequest> {
  const body = await readJson(req, REQUEST_BODY_LIMIT);
  const parsed = ZChatCompletionRequest.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.map(String).join(".") || "body";
    throw new HttpError(400, `${field}: ${issue.message}`, { type: "invalid_request_error", field });
  }
  return parsed.data;
}

function selectKey(): string {
  let pick = Math.random();
  for (const key of KEYS) {
    pick -= key.weight;
    if (pick < 0) return key.id;
  }
  return KEYS[2].id;
}

/** What the gateway sends upstream: normalized messages and only the parameters it forwards. */
function prepareUpstreamRequest(
  request: TChatCompletionRequest,
  stream: boolean,
): UpstreamRequest & Record<string, unknown> {
  const messages = request.messages.map((message) => ({
    role: message.role,
    content:
      typeof message.content === "string" || message.content == null
        ? (message.content ?? "")
        : message.content.map((part) => part.text ?? "").join(""),
    ...(message.name ? { name: message.name } : {}),
  }));
  return {
    model: request.model,
    messages,
    stream,
    ...(request.max_tokens !== undefined ? { max_tokens: request.max_tokens } : {}),
    ...(request.max_completion_tokens !== undefined ? { max_completion_tokens: request.max_completion_tokens } : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.top_p !== undefined ? { top_p: request.top_p } : {}),
    ...(request.user !== undefined ? { user: request.user } : {}),
    ...(stream ? { stream_options: { include_usage: true } } : {}),
  };
}

/** The provider's answer as the gateway returns it: the OpenAI fields, nothing provider-specific. */
function toGatewayCompletion(upstream: Record<string, unknown>) {
  return {
    id: upstream.id,
    object: "chat.completion",
    created: upstream.created,
    model: upstream.model,
    choices: upstream.choices,
    usage: upstream.usage,
  };
}

function toGatewayChunk(upstream: Record<string, unknown>) {
  return {
    id: upstream.id,
    object: "chat.completion.chunk",
    created: upstream.created,
    model: upstream.model,
    choices: upstream.choices,
    ...(upstream.usage ? { usage: upstream.usage } : {}),
  };
}

function timingHeader(stages: Map<Stage, number>): string {
  return formatServerTiming(STAGES.filter((s) => stages.has(s)).map((name) => ({ name, dur: stages.get(name)! })));
}

function openAiError(message: string, type: string, param?: string, code?: string) {
  return { error: { message, type, param: param ?? null, code: code ?? null } };
}

function upstreamErrorBody(error: ProviderError): string {
  let message = "upstream provider failed";
  try {
    const parsed = JSON.parse(error.body) as { error?: { message?: string } };
    if (parsed.error?.message) message = parsed.error.message;
  } catch {
    // A non-JSON upstream body keeps the generic message.
  }
  return JSON.stringify(openAiError(message, "upstream_error", undefined, `upstream_${error.status}`));
}

function waitForDrain(res: ServerResponse, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = () => {
      res.off("drain", done);
      signal.removeEventListener("abort", fail);
      resolve();
    };
    const fail = () => {
      res.off("drain", done);
      reject(signal.reason);
    };
    res.once("drain", done);
    signal.addEventListener("abort", fail, { once: true });
  });
}
