import { parseAllowList } from "@benchboard/core/address";
import { afterEach, describe, expect, it } from "vitest";
import { type PrometheusApiServer, startPrometheusApi } from "../../test/prometheus-api";
import { startHttpServer } from "../../test/servers";
import { PROMQL_MAX_POINTS, probeMonitor, startMonitors } from "./index";

const WORKER = { policy: { allowList: parseAllowList("127.0.0.1").list }, allowProcess: false };
const QUERY = 'sum(container_memory_working_set_bytes{pod=~"gateway-.*"})';
const MB = 1024 * 1024;

let server: PrometheusApiServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

describe("PromQL monitor", () => {
  it("reads the run's window with query_range and stores it as the memory series", async () => {
    server = await startPrometheusApi(() => ({ series: [(t) => 200 * MB + (t % 10) * MB] }));
    const monitors = startMonitors([{ kind: "promql", url: server.url, query: QUERY, metric: "memory" }], WORKER);
    // The live page gets a recent value while the run goes on.
    await expect.poll(() => monitors.latest().mem_bytes, { timeout: 2_500 }).toBeGreaterThanOrEqual(200 * MB);
    await new Promise((r) => setTimeout(r, 2_500));
    const { series, metrics, errors } = await monitors.stop();
    expect(errors).toEqual([]);
    // One live read (the last minute, every 5 s) and the run's window at the end.
    expect(server.queries.map((q) => q.step)).toEqual([5, 1]);
    const q = server.queries.at(-1)!;
    expect(q.query).toBe(QUERY);
    expect(q.step).toBe(1);
    expect(q.end - q.start).toBeGreaterThanOrEqual(2);
    const mem = series.mem_bytes!;
    expect(mem.start).toBe(q.start * 1000);
    expect(mem.intervalMs).toBe(1000);
    expect(mem.values).toHaveLength(q.end - q.start + 1);
    expect(mem.values).toEqual(mem.values.map((_, i) => 200 * MB + ((q.start + i) % 10) * MB));
    expect(metrics.mem_peak_bytes).toBe(Math.max(...(mem.values as number[])));
  });

  it("stores a custom metric under its name, with the configured step", async () => {
    server = await startPrometheusApi(() => ({ series: [() => 42] }));
    const monitors = startMonitors(
      [
        {
          kind: "promql",
          url: `${server.url}/`,
          query: "sum(active_connections)",
          metric: "custom",
          name: "connections",
          unit: "connections",
          stepSeconds: 2,
        },
      ],
      WORKER,
    );
    await new Promise((r) => setTimeout(r, 2_300));
    const { series, errors } = await monitors.stop();
    expect(errors).toEqual([]);
    expect(server.queries.at(-1)!.step).toBe(2);
    expect(series["gauge.connections"]!.intervalMs).toBe(2000);
    expect(series["gauge.connections"]!.values.every((v) => v === 42)).toBe(true);
  });

  it("turns a Prometheus error answer into a readable error naming the query", async () => {
    const secretish = "x".repeat(5_000);
    server = await startPrometheusApi(() => ({
      status: 400,
      body: JSON.stringify({
        status: "error",
        errorType: "bad_data",
        error: `1:5: parse error: unexpected "}" ${secretish}`,
        extra: "not repeated",
      }),
    }));
    const monitors = startMonitors([{ kind: "promql", url: server.url, query: "sum(}", metric: "memory" }], WORKER);
    const { series, errors } = await monitors.stop();
    expect(series.mem_bytes).toBeUndefined();
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toMatch(/^query: Prometheus refused the expression \(bad_data\): 1:5: parse error/);
    expect(errors[0]!.message.length).toBeLessThan(300);
    expect(errors[0]!.message).not.toContain("not repeated");

    const probe = await probeMonitor({ kind: "promql", url: server.url, query: "sum(}", metric: "memory" }, WORKER);
    expect(probe.ok).toBe(false);
    expect(probe.error).toContain("query: Prometheus refused the expression (bad_data)");
  });

  it("refuses unparseable, oversized, too-many-series and too-many-points answers", async () => {
    let mode = "html";
    server = await startPrometheusApi(() => {
      if (mode === "html") return { status: 200, body: "<html>login</html>" };
      if (mode === "huge") return { status: 200, body: `{"status":"success","pad":"${"a".repeat(5 * MB)}"}` };
      if (mode === "many") return { series: [() => 1, () => 2, () => 3] };
      const values = Array.from({ length: PROMQL_MAX_POINTS + 1 }, (_, i) => [i, "1"]);
      return {
        status: 200,
        body: JSON.stringify({ status: "success", data: { resultType: "matrix", result: [{ metric: {}, values }] } }),
      };
    });
    const config = { kind: "promql" as const, url: server.url, query: "up", metric: "cpu" as const };
    const errorFor = async () => (await startMonitors([config], WORKER).stop()).errors.map((e) => e.message);

    expect(await errorFor()).toEqual([expect.stringMatching(/^url: .*something other than JSON \(18 bytes\)$/)]);
    mode = "huge";
    expect(await errorFor()).toEqual([expect.stringMatching(/^url: .*answer too large/)]);
    mode = "many";
    expect(await errorFor()).toEqual([expect.stringMatching(/^query: gave 3 series; it must give one/)]);
    mode = "points";
    expect(await errorFor()).toEqual([expect.stringMatching(/^query: gave 11001 points; at most 11000/)]);
  });

  it("names the field of a bad configuration and refuses a private Prometheus without an allow-list entry", async () => {
    const noName = await probeMonitor({ kind: "promql", url: "http://127.0.0.1:9/", query: "up", metric: "custom" });
    expect(noName.error).toBe("monitors.0.name: a custom metric needs a series name");
    const noQuery = await probeMonitor({ kind: "promql", url: "http://127.0.0.1:9/", query: " ", metric: "memory" });
    expect(noQuery.error).toContain("monitors.0.query");
    server = await startPrometheusApi(() => ({ series: [() => 1] }));
    const strict = await probeMonitor({ kind: "promql", url: server.url, query: "up", metric: "memory" });
    expect(strict.ok).toBe(false);
    expect(strict.error).toMatch(/^url: /);
    expect(server.queries).toHaveLength(0);
  });
});

describe("monitor snapshots (what a checkpoint carries)", () => {
  it("give the series sampled so far and the history read up to now, and sampling goes on until stop", async () => {
    server = await startPrometheusApi(() => ({ series: [(t) => t] }));
    let scrapes = 0;
    const text = await startHttpServer((_req, res) => {
      scrapes++;
      res.end(`process_resident_memory_bytes ${1_000 + scrapes}\n`);
    });
    try {
      const monitors = startMonitors(
        [
          { kind: "prometheus", url: `${text.url}/metrics` },
          { kind: "promql", url: server.url, query: QUERY, metric: "custom", name: "gw", unit: "bytes" },
        ],
        WORKER,
      );
      await new Promise((r) => setTimeout(r, 3_300));
      const snap = await monitors.snapshot();
      expect(snap.errors).toEqual([]);
      const snapMem = snap.series.mem_bytes!;
      const taken = snapMem.values.filter((v): v is number => v !== null);
      expect(taken.length).toBeGreaterThanOrEqual(2);
      expect(snap.metrics.mem_peak_bytes).toBe(Math.max(...taken));
      // The history monitor was read over the window so far: each second's value is the second.
      const gw = snap.series["gauge.gw"]!;
      expect(gw.values.length).toBeGreaterThanOrEqual(3);
      expect(gw.values).toEqual(gw.values.map((_, i) => gw.start / 1000 + i));
      const scrapesAtSnapshot = scrapes;
      await new Promise((r) => setTimeout(r, 2_100));
      const end = await monitors.stop();
      // The snapshot is a prefix of the final series, and sampling went on after it.
      const endMem = end.series.mem_bytes!;
      expect(endMem.start).toBe(snapMem.start);
      snapMem.values.forEach((v, i) => {
        if (v !== null) expect(endMem.values[i]).toBe(v);
      });
      expect(endMem.values.length).toBeGreaterThan(snapMem.values.length);
      expect(scrapes).toBeGreaterThan(scrapesAtSnapshot);
      expect(end.series["gauge.gw"]!.values.length).toBeGreaterThan(gw.values.length);
    } finally {
      await text.close();
    }
  });
});
