import { describe, expect, it } from "vitest";
import { EXPORT_COLUMNS, exportRecord, runsCsv } from "./run-export";

type Item = Parameters<typeof exportRecord>[0];

const run = {
  id: "r1",
  number: 7,
  status: "succeeded",
  excluded: false,
  project: { name: "LLM gateway" },
  scenarioName: "chat, 500 rps",
  target: { name: "gateway" },
  instanceConfig: null,
  source: "launched",
  branch: "main",
  commit: "abc123",
  tags: ["nightly", "t3"],
  label: null,
  startedAt: new Date("2026-01-02T03:04:05Z"),
  createdAt: new Date("2026-01-02T03:00:00Z"),
  endedAt: null,
  result: {
    reading: "valid",
    rate: { metric: "rps", value: 499.5 },
    metrics: { latency_p50: 12.5, latency_p99: 40, success_rate: 1 },
  },
} as unknown as Item;

describe("runs list export", () => {
  it("writes one record per run, names instead of ids, times in ISO 8601", () => {
    expect(exportRecord(run)).toMatchObject({
      number: 7,
      project: "LLM gateway",
      target: "gateway",
      instance_config: null,
      tags: "nightly t3",
      started_at: "2026-01-02T03:04:05.000Z",
      ended_at: null,
      rate_metric: "rps",
      rate: 499.5,
      latency_p99_ms: 40,
    });
  });

  it("quotes CSV cells that need it, one header line then one line per run", () => {
    const lines = runsCsv([run, { ...run, id: "r2", number: 8 } as Item]).split("\r\n");
    expect(lines[0]).toBe(EXPORT_COLUMNS.join(","));
    expect(lines[1]).toContain('"chat, 500 rps"');
    expect(lines.filter(Boolean)).toHaveLength(3);
  });
});
