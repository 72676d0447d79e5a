import { z } from "zod";
import { ZRecordKey } from "../record-keys";
import { freeFormRecord, ZRunResultData } from "../run-result";

/** Most characters of a run's load settings (`scenario.spec`) as JSON. */
export const MAX_SCENARIO_SPEC_CHARS = 100_000;

/**
 * The normalized run: what a CI job uploads, what `benchboard parse` prints and what every
 * importer returns. Metric values inside `result` use the units of the metric registry
 * (latency in ms, sizes in bytes, rates in percent); a metric that was not measured is absent.
 *
 * Importers fill in what the tool's output tells: `tool`, timing, `target.url`, and a `scenario`
 * named after the tool whose `engine` is the tool's load model (`http-open` for rate-driven
 * tools, `http-closed` for concurrency-driven ones) and whose `spec` holds the load settings the
 * output reveals. The uploader adds what only it knows (instance config, git, tags).
 */
export const NORMALIZED_RUN_SCHEMA_VERSION = 1 as const;

const ZIsoDateTime = z.iso.datetime({ offset: true, error: "must be an ISO 8601 date-time" });

export const ZNormalizedRunTool = z.object({
  name: z.string().min(1).max(64),
  version: z.string().min(1).max(64).optional(),
});

export const ZNormalizedRunScenario = z.object({
  name: z.string().min(1).max(200),
  /** A Benchboard engine (`http-open`, `http-closed`, `llm`, `ws-chat`) or the tool's own model. */
  engine: z.string().min(1).max(64).optional(),
  /** Load settings: a Benchboard scenario spec, or the settings a foreign tool reported. */
  spec: freeFormRecord(MAX_SCENARIO_SPEC_CHARS).optional(),
});

export const ZNormalizedRunTarget = z.object({
  name: z.string().min(1).max(200).optional(),
  kind: z.enum(["http", "llm", "ws-chat"]).optional(),
  url: z.url({ error: "must be a URL" }).optional(),
});

export const ZNormalizedRunInstanceConfig = z.object({
  instanceType: z.string().min(1).max(100).optional(),
  vcpu: z.number().positive().optional(),
  memoryMb: z.number().positive().optional(),
  /** CPU limit in cores (e.g. a container's `--cpus`). */
  cpuLimit: z.number().positive().optional(),
  replicas: z.number().int().positive().optional(),
  /** Free-form service settings, e.g. `{ buffer_size: 20000, initial_pool_size: 15000 }`. */
  knobs: z.record(ZRecordKey, z.union([z.string(), z.number(), z.boolean()])).optional(),
});

export const ZNormalizedRunGit = z.object({
  branch: z.string().min(1).max(255).optional(),
  commit: z
    .string()
    .regex(/^[0-9a-f]{7,64}$/i, "must be a hexadecimal commit id")
    .optional(),
  ciUrl: z.url({ error: "must be a URL" }).optional(),
});

export const ZNormalizedRun = z.object({
  schemaVersion: z.literal(NORMALIZED_RUN_SCHEMA_VERSION),
  tool: ZNormalizedRunTool.optional(),
  startedAt: ZIsoDateTime.optional(),
  endedAt: ZIsoDateTime.optional(),
  durationS: z.number().nonnegative().optional(),
  scenario: ZNormalizedRunScenario.optional(),
  result: ZRunResultData,
  target: ZNormalizedRunTarget.optional(),
  instanceConfig: ZNormalizedRunInstanceConfig.optional(),
  git: ZNormalizedRunGit.optional(),
  tags: z.array(z.string().min(1).max(64)).max(50).optional(),
  /** Free text shown on the run; importers put the tool's own warnings about its results here. */
  notes: z.string().max(10_000).optional(),
});
export type TNormalizedRun = z.infer<typeof ZNormalizedRun>;
export type TNormalizedRunInput = z.input<typeof ZNormalizedRun>;

/**
 * JSON Schema (draft 2020-12) of an upload. It describes the input side: fields with defaults
 * (e.g. `result.statusCounts`) may be left out.
 */
export function normalizedRunJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(ZNormalizedRun, { io: "input", target: "draft-2020-12" });
  return {
    ...schema,
    title: "Benchboard normalized run",
    description: "One load-test or benchmark run with its normalized results (schema version 1).",
  };
}
