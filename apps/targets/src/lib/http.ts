import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A refusal with a status and a JSON body; thrown from handlers, rendered by the router. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details: { type?: string; field?: string; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = "HttpError";
  }
}

/**
 * Runs `record` synchronously when the handler ends the response, before its last bytes are
 * handed to the socket. Counting on "finish" instead leaves a window in which a client has read
 * the whole response but a scrape of /metrics does not count it yet.
 */
export function onResponseEnd(res: ServerResponse, record: () => void): void {
  const end = res.end;
  let recorded = false;
  res.end = function (this: ServerResponse, ...args: unknown[]) {
    if (!recorded) {
      recorded = true;
      record();
    }
    return (end as (...a: unknown[]) => ServerResponse).apply(this, args);
  } as ServerResponse["end"];
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string | number> = {},
): void {
  const payload = Buffer.from(JSON.stringify(body));
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": payload.length,
    ...headers,
  });
  res.end(payload);
}

export async function readBody(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"] ?? "0");
  if (declared > limitBytes) throw new HttpError(413, `body is larger than ${limitBytes} bytes`, { field: "body" });
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > limitBytes) throw new HttpError(413, `body is larger than ${limitBytes} bytes`, { field: "body" });
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
}

export async function readJson(req: IncomingMessage, limitBytes = 1024 * 1024): Promise<unknown> {
  const body = await readBody(req, limitBytes);
  if (body.length === 0) throw new HttpError(400, "body: a JSON body is required", { field: "body" });
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    throw new HttpError(400, "body: not valid JSON", { field: "body" });
  }
}

export interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  params: Record<string, string>;
}

export type RouteHandler = (ctx: RouteContext) => void | Promise<void>;

interface Route {
  method: string;
  segments: string[];
  handler: RouteHandler;
}

/**
 * Method + path routing with `:param` segments and a trailing `*`. The targets have a dozen
 * routes each; a framework would add more per-request work than the services themselves do,
 * which matters when the point is to measure them.
 */
export class Router {
  private readonly routes: Route[] = [];

  constructor(private readonly onError: (error: unknown, ctx: RouteContext) => void = defaultErrorHandler) {}

  on(method: string, pattern: string, handler: RouteHandler): this {
    this.routes.push({ method, segments: pattern.split("/").filter(Boolean), handler });
    return this;
  }

  get(pattern: string, handler: RouteHandler): this {
    return this.on("GET", pattern, handler);
  }

  post(pattern: string, handler: RouteHandler): this {
    return this.on("POST", pattern, handler);
  }

  put(pattern: string, handler: RouteHandler): this {
    return this.on("PUT", pattern, handler);
  }

  patch(pattern: string, handler: RouteHandler): this {
    return this.on("PATCH", pattern, handler);
  }

  readonly handle = (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? "/", "http://target.local");
    const path = url.pathname.split("/").filter(Boolean);
    const allowed: string[] = [];
    for (const route of this.routes) {
      const params = match(route.segments, path);
      if (!params) continue;
      const method = req.method === "HEAD" && route.method === "GET" ? "GET" : req.method;
      if (route.method !== method) {
        allowed.push(route.method);
        continue;
      }
      const ctx: RouteContext = { req, res, url, params };
      try {
        const done = route.handler(ctx);
        if (done) done.catch((error: unknown) => this.onError(error, ctx));
      } catch (error) {
        this.onError(error, ctx);
      }
      return;
    }
    const ctx: RouteContext = { req, res, url, params: {} };
    if (allowed.length > 0) {
      this.onError(
        new HttpError(405, `method ${req.method} not allowed`, { headers: { allow: allowed.join(", ") } }),
        ctx,
      );
    } else {
      this.onError(new HttpError(404, `no route for ${url.pathname}`, { type: "not_found" }), ctx);
    }
  };
}

function match(pattern: string[], path: string[]): Record<string, string> | null {
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const segment = pattern[i]!;
    if (segment === "*") {
      params["*"] = path.slice(i).join("/");
      return params;
    }
    const part = path[i];
    if (part === undefined) return null;
    if (segment.startsWith(":")) {
      try {
        params[segment.slice(1)] = decodeURIComponent(part);
      } catch {
        return null;
      }
    } else if (segment !== part) {
      return null;
    }
  }
  return pattern.length === path.length ? params : null;
}

function defaultErrorHandler(error: unknown, { res }: RouteContext): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (error instanceof HttpError) {
    sendJson(
      res,
      error.status,
      {
        error: {
          type: error.details.type ?? (error.status >= 500 ? "server_error" : "invalid_request"),
          message: error.message,
          ...(error.details.field ? { field: error.details.field } : {}),
        },
      },
      error.details.headers,
    );
    return;
  }
  console.error(error);
  sendJson(res, 500, { error: { type: "server_error", message: "internal error" } });
}

export interface Listening {
  server: Server;
  port: number;
  url: string;
}

export function createHttpServer(router: Router): Server {
  const server = createServer(router.handle);
  // Load tests open thousands of keep-alive connections; Node's 5 s default would make clients
  // pay reconnects mid-run whenever a connection sits idle between waves.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  return server;
}

export async function listen(server: Server, port: number, host: string): Promise<Listening> {
  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once("error", onError);
    server.listen(port, host, () => {
      server.off("error", onError);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  return {
    server,
    port: address.port,
    url: `http://${shownHost.includes(":") ? `[${shownHost}]` : shownHost}:${address.port}`,
  };
}

/** Stop accepting, let in-flight requests finish for `graceMs`, then cut what is left. */
export async function closeServer(server: Server, graceMs: number): Promise<void> {
  if (!server.listening) return;
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const timer = setTimeout(() => server.closeAllConnections(), graceMs);
  await closed;
  clearTimeout(timer);
}
