import { describe, expect, it } from "vitest";
import { redactForShare, redactText } from "./share-redaction";

describe("redactForShare", () => {
  it("drops target URLs, CI URLs and headers, and keeps only load numbers of a spec", () => {
    const at = new Date("2026-01-01T00:00:00Z");
    const shared = redactForShare({
      target: { name: "checkout", kind: "http", baseUrl: "http://10.1.2.3:8080" },
      run: { ciUrl: "https://ci.internal/job/1", startedAt: at, notes: "fine" },
      scenario: {
        name: "steady",
        engine: "http-open",
        spec: { rate: 500, durationS: 60, path: "/internal/admin", headers: { authorization: "x" } },
        headers: { "x-api-key": "secret" },
      },
      errors: [{ kind: "connect", message: "dial tcp 10.1.2.3:8080: connection refused", count: 3 }],
    });
    expect(shared.target).toEqual({ name: "checkout", kind: "http", baseUrl: "[address hidden]" });
    expect(shared.run).toEqual({ ciUrl: null, startedAt: at, notes: "fine" });
    expect(shared.scenario).toEqual({ name: "steady", engine: "http-open", spec: { rate: 500, durationS: 60 } });
    expect(shared.errors[0]).toEqual({ kind: "connect", message: "", count: 3 });
  });

  it("hides URLs and host:port pairs in text", () => {
    expect(redactText("Get http://payments.internal:9000/v1: timeout")).toBe("Get [address hidden] timeout");
    expect(redactText("connect to db-primary.corp:5432 failed")).toBe("connect to [address hidden] failed");
    expect(redactText("p99 12.5 ms at 500 req/s")).toBe("p99 12.5 ms at 500 req/s");
  });
});

describe("redactForShare without target details", () => {
  it("shows errors by kind, status and count only, and hides run errors, invalid reasons and text knob values", () => {
    const shared = redactForShare({
      run: {
        error: "worker vm-5163 stopped responding",
        workerIds: ["vm-5163", "vm-5164"],
        serverConfig: { upstream: "redis-master.corp.internal", buffer_size: 15000 },
      },
      config: { knobs: { upstream: "redis-master.corp.internal", buffer_size: 15000, tls: true } },
      result: {
        invalidReasons: ["shard 2 ran on vm-5164 alone"],
        saturationReasons: ["the target is the limit: its queue (queue_depth.billing-internal) grew"],
        errors: [
          { kind: "assert", message: 'who: r.body is {"name":"guest","tags":["administrator"]}', count: 1 },
          { kind: "status", status: 503, message: "HTTP 503", count: 7 },
        ],
      },
    });
    expect(shared.run).toEqual({
      error: expect.stringContaining("details hidden"),
      workerIds: null,
      serverConfig: { upstream: "[hidden]", buffer_size: 15000 },
    });
    expect(shared.config.knobs).toEqual({ upstream: "[hidden]", buffer_size: 15000, tls: true });
    expect(shared.result.invalidReasons).toEqual([expect.stringContaining("details hidden")]);
    expect(shared.result.saturationReasons).toEqual([expect.stringContaining("details hidden")]);
    expect(shared.result.errors).toEqual([
      { kind: "assert", message: "", count: 1 },
      { kind: "status", status: 503, message: "", count: 7 },
    ]);
    expect(JSON.stringify(shared)).not.toMatch(/vm-516|corp\.internal|administrator/);
  });

  it("keeps metric and stage keys, their labels and units, config field paths and instance types", () => {
    const shared = redactForShare({
      table: [{ key: "stage.db", label: "Stage: Db", unit: "ms", cells: [{ value: 10.33 }] }],
      stageKeys: ["stage.db", "stage.queue.wait"],
      overheadStages: ["queue.wait"],
      config: { instanceType: "t3.xlarge", name: "db.corp.internal" },
      configDiff: [
        { path: "config.knobs.buffer_size", values: ["10000", "20000"] },
        { path: "config.knobs.upstream", values: ["redis-a", "redis-b"] },
        { path: "config.instanceType", values: ["t3.xlarge", "m5.large"] },
        { path: "target.baseUrl", values: ["http://a.corp.internal", null] },
      ],
      serverConfig: { unreadable: "GET http://10.0.0.5/admin/config: timeout" },
    });
    expect(shared.table[0]).toEqual({ key: "stage.db", label: "Stage: Db", unit: "ms", cells: [{ value: 10.33 }] });
    expect(shared.stageKeys).toEqual(["stage.db", "stage.queue.wait"]);
    expect(shared.overheadStages).toEqual(["queue.wait"]);
    expect(shared.config).toEqual({ instanceType: "t3.xlarge", name: "[address hidden]" });
    expect(shared.configDiff).toEqual([
      { path: "config.knobs.buffer_size", values: ["10000", "20000"] },
      { path: "config.knobs.upstream", values: ["[hidden]", "[hidden]"] },
      { path: "config.instanceType", values: ["t3.xlarge", "m5.large"] },
      { path: "target.baseUrl", values: ["[address hidden]", null] },
    ]);
    // A hook that could not be read keeps its place ("could not be read"), not its words.
    expect(shared.serverConfig).toEqual({ unreadable: expect.stringContaining("details hidden") });
  });

  it("hides bare host names and IPv6 literals in text, and keeps times of day and numbers", () => {
    expect(redactText("calls payments.corp.internal then vault.corp.internal")).toBe(
      "calls [address hidden] then [address hidden]",
    );
    expect(redactText("peer [fd00::1]:8443 and 2001:db8:0:0:0:0:0:1 and ::1 and fe80::")).toBe(
      "peer [address hidden] and [address hidden] and [address hidden] and [address hidden]",
    );
    expect(redactText("ran at 12:30:45 with p99 12.5 ms")).toBe("ran at 12:30:45 with p99 12.5 ms");
  });
});
