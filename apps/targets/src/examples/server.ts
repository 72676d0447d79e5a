import { readFile, stat } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import pg from "pg";
import type { z } from "zod";
import { ConfigStore, registerAdminConfigRoutes } from "../lib/config-store";
import {
  closeServer,
  createHttpServer,
  HttpError,
  listen,
  onResponseEnd,
  type RouteContext,
  Router,
  readJson,
  sendJson,
} from "../lib/http";
import { DURATION_BUCKETS_SECONDS, PROMETHEUS_CONTENT_TYPE, Registry, registerProcessMetrics } from "../lib/metrics";
import { Semaphore } from "../lib/semaphore";
import { ZCreateCustomerInput, ZExamplesConfig, ZListCustomersInput } from "./config";
import { createCustomer, ensureCustomers, ensureDatabase, listCustomers, SEED_USER_EMAIL } from "./customers";
import { resizeSource, setImageThreads, sourceImage } from "./image";

export interface ExamplesOptions {
  port?: number;
  host?: string;
  config?: unknown;
  /** Any database on the PostgreSQL server; the examples use their own database beside it. */
  databaseUrl: string;
  database?: string;
}

export interface ExamplesServer {
  url: string;
  port: number;
  config: ConfigStore<typeof ZExamplesConfig>;
  /** Resolves once the customers table is ready (rejects with the reason it is not). */
  databaseReady(): Promise<void>;
  close(graceMs?: number): Promise<void>;
}

const STATIC_DIR = fileURLToPath(new URL("./static/", import.meta.url));

/** The light example's files, as fetched by the static-files benchmark plan. */
const STATIC_FILES: Record<string, { file: string; type: string }> = {
  "/": { file: "index.html", type: "text/html; charset=utf-8" },
  "/index.html": { file: "index.html", type: "text/html; charset=utf-8" },
  "/style.css": { file: "style.css", type: "text/css; charset=utf-8" },
  "/script.js": { file: "script.js", type: "text/javascript; charset=utf-8" },
};

const MAX_IMAGE_SIDE = 4000;

type App = "light" | "medium" | "heavy";

export async function startExamples(options: ExamplesOptions): Promise<ExamplesServer> {
  const config = new ConfigStore(ZExamplesConfig, options.config ?? {});
  const registry = new Registry();
  registerProcessMetrics(registry, "examples");
  const resizes = new Semaphore(config.get().max_concurrent_resizes);
  setImageThreads(config.get().image_threads);

  let pool: pg.Pool | undefined;
  let ready: Promise<pg.Pool> | undefined;
  /** Postgres may come up after the targets; the medium example retries on its next request. */
  const database = (): Promise<pg.Pool> => {
    ready ??= (async () => {
      const url = await ensureDatabase(options.databaseUrl, options.database ?? "benchboard_examples");
      const created = new pg.Pool({ connectionString: url, max: config.get().db_pool_size });
      created.on("error", (error) => console.error("[examples] idle database client error:", error.message));
      try {
        await ensureCustomers(created);
      } catch (error) {
        await created.end().catch(() => undefined);
        throw error;
      }
      pool = created;
      return created;
    })().catch((error: unknown) => {
      ready = undefined;
      throw error;
    });
    return ready;
  };

  const requests = registry.counter<"app" | "status">({
    name: "examples_requests_total",
    help: "Requests answered, by example app (light, medium, heavy) and HTTP status.",
    labelNames: ["app", "status"],
  });
  const duration = registry.histogram<"app">({
    name: "examples_request_duration_seconds",
    help: "Time to answer, by example app.",
    labelNames: ["app"],
    buckets: DURATION_BUCKETS_SECONDS,
  });
  registry.gauge<"state">({
    name: "examples_db_pool_connections",
    help: "Medium example's PostgreSQL pool: open connections, idle ones, and queries waiting for one.",
    labelNames: ["state"],
    collect: () => [
      { labels: { state: "total" }, value: pool?.totalCount ?? 0 },
      { labels: { state: "idle" }, value: pool?.idleCount ?? 0 },
      { labels: { state: "waiting" }, value: pool?.waitingCount ?? 0 },
    ],
  });
  registry.gauge({
    name: "examples_resizes_running",
    help: "Heavy example: image resizes in progress.",
    collect: () => resizes.running,
  });
  registry.gauge({
    name: "examples_resizes_waiting",
    help: "Heavy example: resizes waiting for a slot (max_concurrent_resizes).",
    collect: () => resizes.waiting,
  });

  config.onChange(async (next, previous) => {
    resizes.setLimit(next.max_concurrent_resizes);
    setImageThreads(next.image_threads);
    if (next.db_pool_size !== previous.db_pool_size && pool) {
      // pg cannot resize a pool; a new one takes over and the old one closes once its clients
      // are released.
      const old = pool;
      pool = new pg.Pool({ ...old.options, max: next.db_pool_size });
      pool.on("error", (error) => console.error("[examples] idle database client error:", error.message));
      ready = Promise.resolve(pool);
      void old.end().catch(() => undefined);
    }
  });

  const measured =
    (app: App, handler: (ctx: RouteContext) => Promise<void> | void) =>
    (ctx: RouteContext): Promise<void> | void => {
      const started = performance.now();
      onResponseEnd(ctx.res, () => {
        requests.inc({ app, status: ctx.res.statusCode });
        duration.observe((performance.now() - started) / 1000, { app });
      });
      return handler(ctx);
    };

  const router = new Router();
  router.get("/health", async ({ res }) => {
    let databaseState = "ok";
    try {
      await (pool ? pool.query("SELECT 1") : database());
    } catch (error) {
      databaseState = error instanceof Error ? error.message : String(error);
    }
    sendJson(res, databaseState === "ok" ? 200 : 503, {
      status: databaseState === "ok" ? "ok" : "degraded",
      database: databaseState,
    });
  });
  router.get("/metrics", ({ res }) => {
    const body = registry.expose();
    res.writeHead(200, { "content-type": PROMETHEUS_CONTENT_TYPE, "content-length": Buffer.byteLength(body) });
    res.end(body);
  });
  registerAdminConfigRoutes(router, config);

  // Light: small files read from disk on every request, like a static file server does.
  for (const [path, { file, type }] of Object.entries(STATIC_FILES)) {
    router.get(
      path,
      measured("light", async ({ req, res }) => {
        // The files are a few KB: one read and one end() per request, so the response is
        // counted before the client can have read its last byte.
        const filePath = `${STATIC_DIR}${file}`;
        const [info, body] = await Promise.all([stat(filePath), req.method === "HEAD" ? null : readFile(filePath)]);
        res.writeHead(200, {
          "content-type": type,
          "content-length": info.size,
          "last-modified": info.mtime.toUTCString(),
          "cache-control": "no-cache",
        });
        res.end(body ?? undefined);
      }),
    );
  }

  // Medium: a user's customers from PostgreSQL, as JSON.
  const withDatabase = async (): Promise<pg.Pool> => {
    try {
      return await database();
    } catch (error) {
      throw new HttpError(503, `database unavailable: ${error instanceof Error ? error.message : String(error)}`, {
        type: "unavailable",
      });
    }
  };
  router.post(
    "/api/customers",
    measured("medium", async ({ req, res }) => {
      const input = validate(ZListCustomersInput, await readJson(req, 64 * 1024));
      sendJson(res, 200, await listCustomers(await withDatabase(), input.email));
    }),
  );
  router.get(
    "/api/customers",
    measured("medium", async ({ res, url }) => {
      const input = validate(ZListCustomersInput, { email: url.searchParams.get("email") ?? SEED_USER_EMAIL });
      sendJson(res, 200, await listCustomers(await withDatabase(), input.email));
    }),
  );
  router.post(
    "/api/customers/create",
    measured("medium", async ({ req, res }) => {
      const input = validate(ZCreateCustomerInput, await readJson(req, 64 * 1024));
      sendJson(res, 201, await createCustomer(await withDatabase(), input));
    }),
  );

  // Heavy: resize the bundled image, as the image-rescaler benchmark does with `/200/200`.
  router.get(
    "/image.png",
    measured("heavy", async ({ res }) => {
      const image = await sourceImage();
      res.writeHead(200, { "content-type": "image/png", "content-length": image.length });
      res.end(image);
    }),
  );
  router.get(
    "/:width/:height",
    measured("heavy", async ({ res, params }) => {
      const width = imageSide(params.width, "width");
      const height = imageSide(params.height, "height");
      const image = await resizes.run(() => resizeSource(width, height, config.get().png_compression_level));
      res.writeHead(200, { "content-type": "image/png", "content-length": image.length });
      res.end(image);
    }),
  );

  // Drawn before listening, so the first heavy request measures a resize, not the drawing.
  await sourceImage();
  void database().catch((error: unknown) =>
    console.error(`[examples] database not ready yet (${error instanceof Error ? error.message : String(error)})`),
  );

  const server = createHttpServer(router);
  const listening = await listen(server, options.port ?? 4300, options.host ?? "127.0.0.1");
  return {
    url: listening.url,
    port: listening.port,
    config,
    databaseReady: async () => {
      await database();
    },
    async close(graceMs = 5_000) {
      await closeServer(server, graceMs);
      const current = pool;
      pool = undefined;
      await current?.end();
    },
  };
}

function imageSide(text: string | undefined, field: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text ?? "") || value < 1 || value > MAX_IMAGE_SIDE) {
    throw new HttpError(400, `${field}: must be an integer from 1 to ${MAX_IMAGE_SIDE}`, { field });
  }
  return value;
}

function validate<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.map(String).join(".") || "body";
  throw new HttpError(400, `${field}: ${issue.message}`, { field });
}
