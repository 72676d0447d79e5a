// Runs one scenario and prints a JSON summary as its last line; spawned pinned to a core by the benches.
import { runScenario } from "../packages/loadgen/src/index";

const [specJson, baseUrl] = process.argv.slice(2);
if (!specJson || !baseUrl) {
  console.error("usage: engine-child.ts <spec json> <base url>");
  process.exit(2);
}
const before = process.cpuUsage();
const result = await runScenario(JSON.parse(specJson), { baseUrl });
const cpu = process.cpuUsage(before);
console.log(
  JSON.stringify({
    metrics: result.metrics,
    valid: result.valid,
    invalidReasons: result.invalidReasons,
    extra: { schedule: (result.extra as { schedule?: unknown } | undefined)?.schedule },
    series: { rps: result.series.rps?.values, latency_p99: result.series.latency_p99?.values },
    errors: result.errors,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
  }),
);
