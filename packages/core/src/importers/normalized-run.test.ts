import { describe, expect, it } from "vitest";
import { NORMALIZED_RUN_SCHEMA_VERSION, normalizedRunJsonSchema, ZNormalizedRun } from "./normalized-run";

const minimal = { schemaVersion: 1, result: { metrics: { rps: 1200, latency_p99: 12.5 } } };

describe("ZNormalizedRun", () => {
  it("accepts a minimal upload and fills the result's defaults", () => {
    const run = ZNormalizedRun.parse(minimal);
    expect(run.result).toEqual({
      metrics: { rps: 1200, latency_p99: 12.5 },
      statusCounts: {},
      errors: [],
      stages: {},
      valid: true,
      invalidReasons: [],
      saturationReasons: [],
      series: {},
    });
  });

  it("accepts a complete upload", () => {
    const run = {
      schemaVersion: 1,
      tool: { name: "k6", version: "1.8.1" },
      startedAt: "2026-11-22T10:00:00Z",
      endedAt: "2026-11-22T10:01:00.123456789+02:00",
      durationS: 60,
      scenario: { name: "checkout", engine: "http-open", spec: { rate: 5000, durationS: 60 } },
      result: {
        metrics: { requests: 300000, rps: 5000 },
        toolThresholds: [{ metric: "http_req_duration", expression: "p(95)<500", passed: true }],
      },
      target: { name: "gateway", kind: "llm", url: "http://127.0.0.1:8080" },
      instanceConfig: {
        instanceType: "t3.xlarge",
        vcpu: 4,
        memoryMb: 16384,
        cpuLimit: 2,
        replicas: 1,
        knobs: { buffer_size: 20000, initial_pool_size: 15000, drop_excess: false, mode: "fast" },
      },
      git: { branch: "main", commit: "45222d6", ciUrl: "https://ci.example.com/jobs/1" },
      tags: ["nightly", "t3.xlarge"],
    };
    expect(ZNormalizedRun.parse(run)).toMatchObject(run);
  });

  it.each([
    ["another schema version", { ...minimal, schemaVersion: 2 }, ["schemaVersion"]],
    ["a missing result", { schemaVersion: 1 }, ["result"]],
    ["a non-number metric", { schemaVersion: 1, result: { metrics: { rps: "fast" } } }, ["result", "metrics", "rps"]],
    ["a bad timestamp", { ...minimal, startedAt: "yesterday" }, ["startedAt"]],
    ["a bad commit", { ...minimal, git: { commit: "not-a-sha" } }, ["git", "commit"]],
    ["a negative vCPU count", { ...minimal, instanceConfig: { vcpu: -1 } }, ["instanceConfig", "vcpu"]],
    ["an empty tag", { ...minimal, tags: [""] }, ["tags", 0]],
    ["an unknown target kind", { ...minimal, target: { kind: "grpc" } }, ["target", "kind"]],
  ])("rejects %s, naming the field", (_, input, path) => {
    const parsed = ZNormalizedRun.safeParse(input);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(path);
  });
});

describe("normalizedRunJsonSchema", () => {
  const schema = normalizedRunJsonSchema() as {
    $schema: string;
    title: string;
    type: string;
    required: string[];
    properties: Record<string, { properties?: Record<string, unknown>; required?: string[] }>;
  };

  it("is a draft 2020-12 object schema with a title", () => {
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(schema.title).toBe("Benchboard normalized run");
    expect(schema.type).toBe("object");
    expect(NORMALIZED_RUN_SCHEMA_VERSION).toBe(1);
  });

  it("requires only the schema version and the result", () => {
    expect(schema.required.sort()).toEqual(["result", "schemaVersion"]);
    expect(Object.keys(schema.properties).sort()).toEqual(
      [
        "durationS",
        "endedAt",
        "git",
        "instanceConfig",
        "notes",
        "result",
        "scenario",
        "schemaVersion",
        "startedAt",
        "tags",
        "target",
        "tool",
      ].sort(),
    );
  });

  it("describes the input side: result fields with defaults are optional", () => {
    const result = schema.properties.result;
    expect(result?.required).toEqual(["metrics"]);
    expect(Object.keys(result?.properties ?? {})).toEqual(
      expect.arrayContaining(["metrics", "histogram", "statusCounts", "errors", "toolThresholds", "extra"]),
    );
  });

  it("is plain JSON", () => {
    expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
  });
});
