// Runs one scenario in a process of its own (so that a test can pin it to a core with `taskset`)
// and prints the result's figures as JSON on its last line: `open-model-child.ts <spec json> <base url>`.
import { runScenario } from "../src/index";

const [specJson, baseUrl] = process.argv.slice(2);
if (!specJson || !baseUrl) {
  console.error("usage: open-model-child.ts <spec json> <base url>");
  process.exit(2);
}
const result = await runScenario(JSON.parse(specJson), { baseUrl });
console.log(
  JSON.stringify({
    metrics: result.metrics,
    valid: result.valid,
    invalidReasons: result.invalidReasons,
    schedule: (result.extra as { schedule?: unknown } | undefined)?.schedule ?? null,
  }),
);
