import { Worker } from "node:worker_threads";
import type { TScenarioSpec } from "@benchboard/core";
import { HttpCall, prepareScenarioRequest } from "../http/call";
import { recordHttpCall } from "../http/record";
import { enforceLimits } from "../limits";
import type { EngineContext, EngineResult } from "../types";
import { runOpenModel } from "./open-model";

type HttpOpenSpec = Extract<TScenarioSpec, { engine: "http-open" }>;

/** One request at a fixed or ramping arrival rate; see `runOpenModel` for the method. */
export async function runHttpOpen(spec: HttpOpenSpec, ctx: EngineContext): Promise<EngineResult> {
  enforceLimits(spec, ctx);
  await warmOpenModelCode();
  return sendHttpOpen(spec, ctx);
}

function sendHttpOpen(spec: HttpOpenSpec, ctx: EngineContext): Promise<EngineResult> {
  const { url, request } = prepareScenarioRequest(spec, ctx);
  return runOpenModel(
    {
      origin: url.origin,
      rate: spec.rate,
      durationS: spec.durationS,
      rampFromRate: spec.rampFromRate,
      rampS: spec.rampS,
      warmupS: spec.warmupS,
      maxConnections: spec.maxConnections,
      timeoutMs: spec.timeoutMs,
      dispatch: (pool, dueAt, _index, done) => {
        const call = new HttpCall(dueAt, done);
        pool.dispatch(request, call);
        return call;
      },
      record: (rec, call, error, now) => {
        recordHttpCall(rec, call, error, now, request.bodyBytes);
      },
    },
    ctx,
  );
}

/**
 * What the process-wide code warm-up sends: ~3,300 requests over 1.3 s to a server of its own on
 * loopback (a thread of this process), never to a target.
 */
const CODE_WARMUP: HttpOpenSpec = {
  engine: "http-open",
  rate: 3000,
  durationS: 1,
  warmupS: 0.3,
  maxConnections: 8,
  timeoutMs: 5000,
  request: { method: "GET", path: "/" },
} as HttpOpenSpec;

const LOOPBACK_SERVER = `
const http = require("node:http");
const { parentPort } = require("node:worker_threads");
const body = Buffer.from("warm\\n");
const server = http.createServer((req, res) => {
  req.resume();
  res.writeHead(200, { "content-type": "text/plain", "content-length": body.length });
  res.end(body);
});
server.listen(0, "127.0.0.1", () => parentPort.postMessage(server.address().port));
`;

let codeWarmup: Promise<void> | null = null;

/**
 * Once per process, before its first open-model run: drive the open model's own code (pacing,
 * undici's request and response path, the recorder) against a loopback server for about a second.
 *
 * A fresh process compiles and optimises that code while it runs. On a load generator pinned to
 * one core, the compiler's and the garbage collector's helper threads then take the core for
 * milliseconds at a time during the first seconds, while sends fall due: measured at 5,000 req/s
 * on nginx, a third to a half of the requests above p99 came from the first 1.5 s after a 1 s
 * warm-up, and the run's p99 was about twice that of a warmed process. The run's own warm-up
 * cannot take this over: it is the user's, sized for the target's connections and caches, and
 * it sends to the target. A worker or agent pays this once, on its first run (about 1.3 s).
 * Any failure here is ignored: the run then starts cold, as it did before.
 */
export function warmOpenModelCode(): Promise<void> {
  codeWarmup ??= (async () => {
    const server = new Worker(LOOPBACK_SERVER, { eval: true });
    try {
      const port = await new Promise<number>((resolve, reject) => {
        server.once("message", (p: unknown) => (typeof p === "number" ? resolve(p) : reject(new Error("no port"))));
        server.once("error", reject);
        server.once("exit", () => reject(new Error("loopback server ended")));
      });
      await sendHttpOpen(CODE_WARMUP, { baseUrl: `http://127.0.0.1:${port}` });
    } finally {
      await server.terminate();
    }
  })().catch(() => undefined);
  return codeWarmup;
}
