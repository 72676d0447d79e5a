import { type TScenarioSpec, ZScenarioSpec } from "@benchboard/core";
import { runHttpClosed } from "./engines/http-closed";
import { EngineConfigError, type EngineContext, type EngineResult } from "./types";

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
  switch (spec.engine) {
    case "http-closed":
      return runHttpClosed(spec, ctx);
    default:
      throw new EngineConfigError("engine", `engine ${spec.engine} is not available yet`);
  }
}
