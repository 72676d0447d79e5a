import type http from "node:http";
import { startHttpServer, type TestServer } from "./servers";

export interface PrometheusApiServer extends TestServer {
  /** Every query_range request seen, with its parsed parameters. */
  queries: { query: string; start: number; end: number; step: number }[];
}

/**
 * A small Prometheus-compatible query API on 127.0.0.1: `GET /api/v1/query_range` answers a
 * matrix whose value at time t is `valueAt(query, t)`, one series per entry `answer` returns.
 * `answer` may instead return a raw body to send (errors, malformed answers).
 */
export async function startPrometheusApi(
  answer: (query: string) => { series: ((t: number) => number)[] } | { status: number; body: string },
): Promise<PrometheusApiServer> {
  const queries: PrometheusApiServer["queries"] = [];
  const server = await startHttpServer((req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== "/api/v1/query_range") {
      res.statusCode = 404;
      res.end("not found");
      return;
    }
    const q = {
      query: url.searchParams.get("query") ?? "",
      start: Number(url.searchParams.get("start")),
      end: Number(url.searchParams.get("end")),
      step: Number(url.searchParams.get("step")),
    };
    queries.push(q);
    const a = answer(q.query);
    res.setHeader("content-type", "application/json");
    if ("body" in a) {
      res.statusCode = a.status;
      res.end(a.body);
      return;
    }
    const result = a.series.map((valueAt, i) => {
      const values: [number, string][] = [];
      for (let t = q.start; t <= q.end; t += q.step) values.push([t, String(valueAt(t))]);
      return { metric: { pod: `gateway-${i}` }, values };
    });
    res.end(JSON.stringify({ status: "success", data: { resultType: "matrix", result } }));
  });
  return Object.assign(server, { queries });
}
