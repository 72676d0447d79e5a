import { describe, expect, it } from "vitest";
import {
  emptyMonitor,
  headerInputs,
  monitorInputs,
  overheadStagesInput,
  overheadStagesText,
  rowsFromTarget,
  type Target,
} from "./target-form";

/** A target as `target.byId` returns it: secrets by name only, a monitor password as a flag. */
const target = {
  id: "t1",
  name: "gateway",
  headers: [
    { name: "content-type", value: "application/json" },
    { name: "authorization", secret: true },
  ],
  monitors: [
    {
      id: "m1",
      kind: "prometheus",
      url: "http://127.0.0.1:4100/metrics",
      memoryMetric: "process_resident_memory_bytes",
      cpuMetric: "process_cpu_seconds_total",
      gauges: [{ name: "queue", metric: "gateway_queue_depth" }],
    },
    {
      id: "m2",
      kind: "rabbitmq",
      url: "http://127.0.0.1:15672",
      vhost: "/",
      queues: ["chat.a", "chat.b"],
      username: "guest",
      hasPassword: true,
    },
    { id: "m3", kind: "process", pid: null, port: 4100 },
  ],
} as unknown as Target;

describe("target ↔ form rows", () => {
  it("opens a target and saves it back with its secrets kept (sent as null, named by `from`)", () => {
    const rows = rowsFromTarget(target);
    expect(headerInputs(rows.headers)).toEqual([
      { name: "content-type", secret: false, value: "application/json", from: null },
      { name: "authorization", secret: true, value: null, from: "authorization" },
    ]);
    const errors: Record<string, string> = {};
    expect(monitorInputs(rows.monitors, errors)).toEqual([
      {
        id: "m1",
        config: {
          kind: "prometheus",
          url: "http://127.0.0.1:4100/metrics",
          memoryMetric: "process_resident_memory_bytes",
          cpuMetric: "process_cpu_seconds_total",
          gauges: [{ name: "queue", metric: "gateway_queue_depth" }],
        },
      },
      {
        id: "m2",
        config: {
          kind: "rabbitmq",
          url: "http://127.0.0.1:15672",
          vhost: "/",
          queues: ["chat.a", "chat.b"],
          username: "guest",
        },
        password: null,
        clearPassword: false,
      },
      { id: "m3", config: { kind: "process", pid: undefined, port: 4100 } },
    ]);
    expect(errors).toEqual({});
  });

  it("sends a replaced secret's new value and a new header as typed", () => {
    const rows = rowsFromTarget(target);
    rows.headers[1] = { ...rows.headers[1]!, replacing: true, value: "Bearer new" };
    expect(headerInputs(rows.headers)[1]).toEqual({
      name: "authorization",
      secret: true,
      value: "Bearer new",
      from: "authorization",
    });
  });

  it("records malformed gauges and a port that is not a whole number at their fields", () => {
    const prometheus = { ...emptyMonitor("prometheus"), url: "http://x/metrics", gauges: "queue" };
    const processRow = { ...emptyMonitor("process"), port: "41.5" };
    const errors: Record<string, string> = {};
    monitorInputs([prometheus, processRow], errors);
    expect(errors).toEqual({
      "monitors.0.config.gauges": "one gauge per line: name=metric",
      "monitors.1.config.port": "must be a whole number",
    });
  });

  it("opens and saves a PromQL monitor; a custom series keeps its name and unit, a builtin one drops them", () => {
    const promql = {
      id: "m4",
      kind: "promql",
      url: "http://prometheus:9090",
      query: 'sum(container_memory_working_set_bytes{pod=~"gateway-.*"})',
      metric: "custom",
      name: "gateway_mem",
      unit: "bytes",
      stepSeconds: 5,
    };
    const rows = rowsFromTarget({ ...target, monitors: [promql] } as unknown as Target);
    const errors: Record<string, string> = {};
    const { id, ...config } = promql;
    expect(monitorInputs(rows.monitors, errors)).toEqual([{ id, config }]);
    const memory = { ...rows.monitors[0]!, metric: "memory" as const, step: "2.5" };
    expect(monitorInputs([memory], errors)[0]!.config).toMatchObject({
      metric: "memory",
      name: undefined,
      unit: undefined,
    });
    expect(errors).toEqual({ "monitors.0.config.stepSeconds": "must be a whole number of seconds" });
  });

  it("shows overhead stages as comma-separated text and sends them back as a list", () => {
    const text = overheadStagesText({ overheadStages: ["queue_wait", "key_selection"] });
    expect(text).toBe("queue_wait, key_selection");
    const errors: Record<string, string> = {};
    expect(overheadStagesInput(text, errors)).toEqual(["queue_wait", "key_selection"]);
    expect(overheadStagesInput(" queue_wait ,, json.marshal-1 ,", errors)).toEqual(["queue_wait", "json.marshal-1"]);
    expect(overheadStagesInput("   ", errors)).toEqual([]);
    expect(errors).toEqual({});
    expect(overheadStagesText(null)).toBe("");
  });

  it("names the overhead stages field for a malformed, repeated or too long list", () => {
    const bad: Record<string, string> = {};
    overheadStagesInput("queue_wait, Key Selection", bad);
    expect(bad.overheadStages).toMatch(/^"Key Selection": each overhead stage is 1–64 characters/);
    const twice: Record<string, string> = {};
    overheadStagesInput("queue_wait, queue_wait", twice);
    expect(twice.overheadStages).toBe('overhead stage "queue_wait" appears twice');
    const many: Record<string, string> = {};
    overheadStagesInput(Array.from({ length: 33 }, (_, i) => `s${i}`).join(","), many);
    expect(many.overheadStages).toBe("overhead stages: at most 32 names");
  });
});
