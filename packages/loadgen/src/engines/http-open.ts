import type { TScenarioSpec } from "@benchboard/core";
import { HttpCall, prepareRequest } from "../http/call";
import { recordHttpCall } from "../http/record";
import { enforceLimits } from "../limits";
import type { EngineContext, EngineResult } from "../types";
import { resolveTargetUrl } from "../url";
import { runOpenModel } from "./open-model";

type HttpOpenSpec = Extract<TScenarioSpec, { engine: "http-open" }>;

/** One request at a fixed or ramping arrival rate; see `runOpenModel` for the method. */
export async function runHttpOpen(spec: HttpOpenSpec, ctx: EngineContext): Promise<EngineResult> {
  enforceLimits(spec, ctx);
  const url = resolveTargetUrl(ctx.baseUrl, spec.request.path);
  const request = prepareRequest({
    path: url.pathname + url.search,
    method: spec.request.method,
    headers: { ...ctx.headers, ...spec.request.headers },
    body: spec.request.body ?? null,
    timeoutMs: spec.timeoutMs,
  });
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
      dispatch: (pool, dueAt, _index, _measured, done) => {
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
