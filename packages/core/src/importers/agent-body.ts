/**
 * The bodies `benchboard agent` reports results in (checkpoints and the end of a run), and their
 * reading: JSON text into a checked input whose result has canonical histograms. A result body
 * may be megabytes, so it is read on the parse pool (`parse-pool.ts`) like an upload, never on
 * the thread that answers requests; the REST routes and the OpenAPI document use these schemas.
 */
import { z } from "zod";
import "../zod-messages";
import { canonicalUploadResult } from "../result-input";
import { type TRunResultData, ZRunResultData } from "../run-result";
import { HARD_LIMITS } from "../scenario";
import { ImportError } from "./import-error";
import { parseRequestJson, refuseReservedKey, requestBodyError } from "./json";

/**
 * Time a run's series may cover beyond its longest duration: the warm-up (at most 60 s), the
 * drain of requests still on the wire at the end (timeouts), and two machines' clocks.
 */
export const AGENT_SERIES_SLACK_S = 300;

/**
 * Most points in one series (or per-interval histograms) of an agent's result. Engines and
 * monitors sample once a second, and no run lasts longer than `HARD_LIMITS.maxDurationS`
 * (3,600 s), so a real run's series has at most 3,600 points plus the slack: 3,900. At the
 * schema's 100 series that is 390,000 numbers, about a fifth of what the body limit would let
 * through at uploads' bound of 86,400 points.
 */
export const MAX_AGENT_SERIES_POINTS = HARD_LIMITS.maxDurationS + AGENT_SERIES_SLACK_S;

const points = (n: number) => n.toLocaleString("en-US");
const tooManyPoints = (n: number) =>
  `has ${points(n)} points; at most ${points(MAX_AGENT_SERIES_POINTS)} (a run lasts at most ${points(HARD_LIMITS.maxDurationS)} s, sampled once a second, plus ${AGENT_SERIES_SLACK_S} s)`;

/**
 * Refuses series longer than a run can make, before any point is validated: an oversized
 * result costs one look at each series' length.
 */
function boundTimelines(input: unknown, ctx: z.RefinementCtx): unknown {
  if (input === null || typeof input !== "object" || Array.isArray(input)) return input;
  const { series, intervalHistograms } = input as { series?: unknown; intervalHistograms?: unknown };
  if (series !== null && typeof series === "object" && !Array.isArray(series)) {
    for (const [key, s] of Object.entries(series)) {
      const values = (s as { values?: unknown } | null)?.values;
      if (Array.isArray(values) && values.length > MAX_AGENT_SERIES_POINTS) {
        ctx.addIssue({ code: "custom", message: tooManyPoints(values.length), path: ["series", key, "values"] });
        return input;
      }
    }
  }
  const intervals = (intervalHistograms as { values?: unknown } | null | undefined)?.values;
  if (Array.isArray(intervals) && intervals.length > MAX_AGENT_SERIES_POINTS) {
    ctx.addIssue({
      code: "custom",
      message: tooManyPoints(intervals.length),
      path: ["intervalHistograms", "values"],
    });
  }
  return input;
}

export const ZAgentId = z.string().min(1).max(64);
export const ZAgentShard = z.number().int().min(0).max(1023).nullable().default(null);

/** A result as the engines make it: the stored result plus the engine's window and cancel flag. */
export const ZAgentEngineResult = z
  .preprocess(
    boundTimelines,
    ZRunResultData.extend({
      startedAt: z.number().int().min(0).max(8.64e15),
      endedAt: z.number().int().min(0).max(8.64e15),
      canceled: z.boolean().default(false),
    }),
  )
  .meta({
    description: `Each series, and intervalHistograms.values, holds at most ${points(MAX_AGENT_SERIES_POINTS)} points.`,
  });
export type TAgentEngineResult = z.output<typeof ZAgentEngineResult>;

export const ZAgentCheckpointInput = z.object({ agentId: ZAgentId, shard: ZAgentShard, result: ZAgentEngineResult });
export type TAgentCheckpointInput = z.output<typeof ZAgentCheckpointInput>;

export const ZAgentResultInput = z.object({
  agentId: ZAgentId,
  shard: ZAgentShard,
  /** succeeded: the engine ran to its end (the server judges it); canceled: stopped; failed: could not run. */
  status: z.enum(["succeeded", "canceled", "failed"]),
  error: z.string().trim().max(2_000).nullable().default(null),
  /** Why the agent stopped the load itself (its shutdown), for a canceled run. */
  stopping: z.boolean().default(false),
  result: ZAgentEngineResult.nullable().default(null),
});
export type TAgentResultInput = z.output<typeof ZAgentResultInput>;

/** `checkpoint`: POST /agent/runs/{id}/checkpoint; `result`: POST /agent/runs/{id}/result. */
export type AgentBodyKind = "checkpoint" | "result";

/** An agent's result, read: canonical (histograms re-encoded, series bounded) and its window. */
export interface AgentResultRead {
  data: TRunResultData;
  startedAt: number;
  endedAt: number;
  canceled: boolean;
}

export type AgentBody =
  | { kind: "checkpoint"; input: Omit<TAgentCheckpointInput, "result">; result: AgentResultRead }
  | { kind: "result"; input: Omit<TAgentResultInput, "result">; result: AgentResultRead | null };

function parseBody(text: string): unknown {
  const parsed = parseRequestJson(text);
  refuseReservedKey(parsed);
  return parsed;
}

function validate<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.map(String).join(".") ?? "";
  const message = issue?.message ?? "invalid input";
  throw requestBodyError(field ? `${field}: ${message}` : message, field ? { field } : {});
}

/**
 * The result with its histograms decoded under bounds and re-encoded, and its series checked
 * (`canonicalUploadResult`). The run's start is not known here: the caller checks the series'
 * starts against it with `checkResultWindow`.
 */
function readResult(result: TAgentEngineResult): AgentResultRead {
  const { startedAt, endedAt, canceled, ...data } = result;
  try {
    return {
      data: canonicalUploadResult("agent", data as TRunResultData, { startedAt: null, endedAt: null }),
      startedAt,
      endedAt,
      canceled,
    };
  } catch (err) {
    if (err instanceof ImportError) throw requestBodyError(err.message, { field: err.field });
    throw err;
  }
}

/**
 * An agent's checkpoint or result body read from its JSON text: parsed, checked against the
 * route's schema and made canonical. Throws an ImportError whose message names the field.
 */
export function readAgentBody(kind: AgentBodyKind, text: string): AgentBody {
  const value = parseBody(text);
  if (kind === "checkpoint") {
    const { result, ...input } = validate(ZAgentCheckpointInput, value);
    return { kind, input, result: readResult(result) };
  }
  const { result, ...input } = validate(ZAgentResultInput, value);
  return { kind, input, result: result ? readResult(result) : null };
}
