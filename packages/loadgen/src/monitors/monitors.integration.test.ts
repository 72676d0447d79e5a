import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { parseAllowList } from "@benchboard/core/address";
import amqp from "amqplib";
import { afterAll, describe, expect, it } from "vitest";
import { startHttpServer } from "../../test/servers";
import { findPidByPort, probeMonitor, startMonitors } from "./index";

// As a worker runs them for the install's own organization, with 127.0.0.1 allowed by the operator.
const WORKER = { policy: { allowList: parseAllowList("127.0.0.1").list }, allowProcess: true };

const AMQP_URL = process.env.AMQP_URL ?? "amqp://guest:guest@127.0.0.1:5672";
const RABBIT_API = process.env.RABBITMQ_MANAGEMENT_URL ?? "http://127.0.0.1:15672";
const MB = 1024 * 1024;

/** A child process holding ~160 MB resident and burning about half a core, listening on a port. */
async function startHungryProcess(): Promise<{ child: ChildProcess; port: number }> {
  const script = `
    const hold = Buffer.alloc(160 * 1024 * 1024, 7);
    setInterval(() => { const end = Date.now() + 50; while (Date.now() < end) {} }, 100);
    const server = require("node:http").createServer((q, s) => s.end(String(hold.length)));
    server.listen(0, "127.0.0.1", () => console.log(server.address().port));
  `;
  const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once("data", (d: Buffer) => resolve(Number(d.toString().trim())));
    child.once("exit", (code) => reject(new Error(`child exited with ${code}`)));
  });
  return { child, port };
}

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill("SIGKILL");
});

describe("process monitor", () => {
  it("finds the pid listening on a port and samples its RSS and CPU", async () => {
    const { child, port } = await startHungryProcess();
    children.push(child);
    expect(await findPidByPort(port)).toBe(child.pid);

    const probe = await probeMonitor({ kind: "process", port }, WORKER);
    expect(probe.ok, probe.error).toBe(true);
    expect(probe.details.pid).toBe(child.pid);
    expect(probe.details.name).toBe("node");
    expect(probe.readings.mem_bytes).toBeGreaterThan(160 * MB);

    const monitors = startMonitors([{ kind: "process", port }], WORKER);
    await new Promise((r) => setTimeout(r, 3_200));
    const { series, metrics, errors } = await monitors.stop();
    expect(errors).toEqual([]);
    const mem = series.mem_bytes!.values.filter((v): v is number => v !== null);
    expect(mem.length).toBeGreaterThanOrEqual(2);
    for (const v of mem) expect(v).toBeGreaterThan(160 * MB);
    expect(metrics.mem_peak_bytes).toBe(Math.max(...mem));
    expect(metrics.mem_avg_bytes).toBeGreaterThan(160 * MB);
    // Series sit on whole epoch seconds, like the engines'.
    expect(series.mem_bytes!.start % 1000).toBe(0);
    // About half a core; a loaded machine may give it less, never more than one.
    expect(metrics.cpu_peak).toBeGreaterThan(0.15);
    expect(metrics.cpu_peak).toBeLessThan(1.2);
  });

  it("gives a run that ends before the first whole second one reading at its end", async () => {
    // Start right after a whole second, so stopping 100 ms later comes before the first tick.
    await new Promise((r) => setTimeout(r, 1_005 - (Date.now() % 1_000)));
    const monitors = startMonitors([{ kind: "process", pid: process.pid }], WORKER);
    await new Promise((r) => setTimeout(r, 100));
    const { series, metrics, errors, samples } = await monitors.stop();
    expect(errors).toEqual([]);
    expect(samples).toBe(1);
    expect(series.mem_bytes!.values).toHaveLength(1);
    expect(series.mem_bytes!.values[0]).toBeGreaterThan(10 * MB);
    expect(metrics.mem_peak_bytes).toBe(series.mem_bytes!.values[0]);
    // The reading sits in the whole second it was taken in.
    expect(series.mem_bytes!.start % 1000).toBe(0);
    expect(Date.now() - series.mem_bytes!.start).toBeLessThan(2_000);
  });

  it("says so when nothing listens on the port", async () => {
    const gone = await startHttpServer((_q, s) => s.end());
    const port = gone.port;
    await gone.close();
    const probe = await probeMonitor({ kind: "process", port }, WORKER);
    expect(probe.ok).toBe(false);
    expect(probe.error).toContain(`port ${port}`);
  });
});

describe("prometheus monitor", () => {
  it("samples memory, CPU cores from the counter, and named gauges", async () => {
    const t0 = Date.now();
    const server = await startHttpServer((_req, res) => {
      const cpuSeconds = 3 + ((Date.now() - t0) / 1000) * 0.5;
      res.setHeader("content-type", "text/plain; version=0.0.4");
      res.end(
        [
          "# HELP process_resident_memory_bytes Resident memory size in bytes.",
          "# TYPE process_resident_memory_bytes gauge",
          "process_resident_memory_bytes 1.5e+08",
          "# TYPE process_cpu_seconds_total counter",
          `process_cpu_seconds_total ${cpuSeconds}`,
          "# TYPE gateway_queue_depth gauge",
          'gateway_queue_depth{provider="a"} 12',
          'gateway_queue_depth{provider="b"} 30',
          "",
        ].join("\n"),
      );
    });
    try {
      const config = {
        kind: "prometheus" as const,
        url: `${server.url}/metrics`,
        gauges: [
          { name: "queue_depth", metric: "gateway_queue_depth" },
          { name: "queue_a", metric: "gateway_queue_depth", labels: { provider: "a" } },
        ],
      };
      const probe = await probeMonitor(config, WORKER);
      expect(probe.ok, probe.error).toBe(true);
      expect(probe.readings.mem_bytes).toBe(150_000_000);
      expect(probe.readings["gauge.queue_depth"]).toBe(42);
      expect(probe.readings.cpu_cores).toBeCloseTo(0.5, 1);
      expect(probe.details.missing).toEqual([]);

      // A second memory source: the first in the list keeps the plain key.
      const monitors = startMonitors([config, { kind: "process", pid: process.pid }], WORKER);
      await new Promise((r) => setTimeout(r, 3_200));
      const { series, metrics } = await monitors.stop();
      expect(series.mem_bytes!.values.filter((v) => v !== null).every((v) => v === 150_000_000)).toBe(true);
      expect(series["mem_bytes.process1"]!.values.some((v) => v !== null && v > 10 * MB)).toBe(true);
      expect(series["gauge.queue_a"]!.values.filter((v) => v !== null)[0]).toBe(12);
      expect(metrics.queue_depth_peak).toBe(42);
      expect(metrics.cpu_peak).toBeGreaterThan(0.4);
      expect(metrics.cpu_peak).toBeLessThan(0.6);
    } finally {
      await server.close();
    }
  });

  it("reports an endpoint that is down without throwing", async () => {
    const probe = await probeMonitor({ kind: "prometheus", url: "http://127.0.0.1:1/metrics" }, WORKER);
    expect(probe.ok).toBe(false);
    expect(probe.error).toMatch(/unreachable/);
    const bad = await probeMonitor({ kind: "prometheus", url: "ftp://x" } as never, WORKER);
    expect(bad.ok).toBe(false);
    expect(bad.error).toContain("monitors.0.url");
  });
});

describe("rabbitmq monitor", () => {
  it("reads a real queue's depth from the management API", async () => {
    let connection: amqp.ChannelModel;
    try {
      connection = await amqp.connect(AMQP_URL);
    } catch (err) {
      throw new Error(`RabbitMQ is not reachable at ${AMQP_URL} (start it with scripts/services.sh): ${String(err)}`);
    }
    const queue = `benchboard-monitor-test-${randomBytes(4).toString("hex")}`;
    const channel = await connection.createConfirmChannel();
    try {
      await channel.assertQueue(queue, { durable: false, autoDelete: false });
      for (let i = 0; i < 37; i++) channel.sendToQueue(queue, Buffer.from(`m${i}`));
      await channel.waitForConfirms();
      const config = { kind: "rabbitmq" as const, url: RABBIT_API, queues: [queue] };

      // The management API refreshes queue stats every few seconds.
      let probe = await probeMonitor(config, WORKER);
      const deadline = Date.now() + 20_000;
      while (probe.readings.queue_depth !== 37 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 500));
        probe = await probeMonitor(config, WORKER);
      }
      expect(probe.ok, probe.error).toBe(true);
      expect(probe.readings.queue_depth).toBe(37);
      expect(probe.readings[`queue_ready.${queue}`]).toBe(37);
      expect(probe.readings[`queue_unacked.${queue}`]).toBe(0);

      const monitors = startMonitors([config], WORKER);
      await new Promise((r) => setTimeout(r, 2_200));
      const { series, metrics, errors } = await monitors.stop();
      expect(errors).toEqual([]);
      expect(metrics.queue_depth_peak).toBe(37);
      expect(series[`queue_depth.${queue}`]!.values.filter((v) => v !== null)).toContain(37);

      const wrongPassword = await probeMonitor({ ...config, password: "not-the-password" }, WORKER);
      expect(wrongPassword.ok).toBe(false);
      expect(wrongPassword.error).toContain("401");
      expect(wrongPassword.error).not.toContain("not-the-password");
      const missing = await probeMonitor({ ...config, queues: [`${queue}-missing`] }, WORKER);
      expect(missing.error).toContain("not found");
    } finally {
      await channel.deleteQueue(queue).catch(() => undefined);
      await connection.close();
    }
  });
});
