import { type TScenarioSpec, ZScenarioSpec } from "@benchboard/core";
import { DEAD_TARGET_MESSAGE, DeadTargetWatch } from "./dead-target";
import { runCapacitySearch } from "./engines/capacity-search";
import { runHttpClosed } from "./engines/http-closed";
import { runHttpOpen } from "./engines/http-open";
import { runLlm } from "./engines/llm";
import { runWsChat } from "./engines/ws-chat";
import { EngineConfigError, type EngineContext, type EngineResult } from "./types";

export { DEAD_TARGET_AFTER_MS, DEAD_TARGET_MESSAGE, DeadTargetWatch } from "./dead-target";
export { plateauSpec, runCapacitySearch } from "./engines/capacity-search";
export { compilePlan, runHttpClosed } from "./engines/http-closed";
export { runHttpOpen } from "./engines/http-open";
export { renderPrompt, runLlm, SseChatReader } from "./engines/llm";
export { runWsChat } from "./engines/ws-chat";
export { mergeResults } from "./merge";
export { mergeShardResults } from "./merge-shards";
export * from "./monitors/index";
export type { Stall } from "./open-loop";
export { type DrillImport, DrillImportError, importDrillPlan, importDrillPlanDetailed } from "./plan/drill";
export * from "./protocols/chat";
export { deriveMetrics, Recorder } from "./recorder";
export { ArrivalSchedule } from "./schedule";
export * from "./server-config";
export { parseServerTiming, type ServerTimingEntry } from "./server-timing";
export { askUntilAnswered } from "./stall-confirm";
export * from "./types";
export { resolveTargetUrl } from "./url";

/** Run one scenario spec against a target with the engine it names. */
export async function runScenario(input: unknown, ctx: EngineContext): Promise<EngineResult> {
  const parsed = ZScenarioSpec.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new EngineConfigError(issue?.path.join(".") || "scenario", issue?.message ?? "invalid scenario");
  }
  const spec: TScenarioSpec = parsed.data;
  // A target that refuses every connection is not load-tested for the whole duration: the run
  // stops once nothing has succeeded for DEAD_TARGET_AFTER_MS and every attempt was refused.
  const stop = new AbortController();
  const outer = ctx.signal;
  const forward = () => stop.abort();
  if (outer?.aborted) stop.abort();
  outer?.addEventListener("abort", forward, { once: true });
  const watch = new DeadTargetWatch();
  const inner: EngineContext = {
    ...ctx,
    signal: stop.signal,
    onTick: (counters, now) => {
      ctx.onTick?.(counters, now);
      if (!stop.signal.aborted && watch.check(counters, now)) stop.abort();
    },
  };
  try {
    const result = await runEngine(spec, inner);
    if (watch.dead && !outer?.aborted) {
      result.canceled = false;
      result.extra = { ...result.extra, deadTarget: true };
      result.invalidReasons = [...(result.invalidReasons ?? []), DEAD_TARGET_MESSAGE];
    }
    return result;
  } finally {
    outer?.removeEventListener("abort", forward);
  }
}

function runEngine(spec: TScenarioSpec, ctx: EngineContext): Promise<EngineResult> {
  switch (spec.engine) {
    case "http-open":
      return runHttpOpen(spec, ctx);
    case "http-closed":
      return runHttpClosed(spec, ctx);
    case "llm":
      return runLlm(spec, ctx);
    case "ws-chat":
      return runWsChat(spec, ctx);
    case "capacity-search":
      return runCapacitySearch(spec, ctx);
  }
}
