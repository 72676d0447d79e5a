import { readEnv, runnerOptionsFromEnv } from "./env";
import { startRunner } from "./worker";

const options = runnerOptionsFromEnv(readEnv(), process.env);
const { workerId } = options;
const runner = await startRunner(options);

let closing = false;
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    if (closing) return;
    closing = true;
    console.log(`[worker ${workerId}] ${signal}: stopping in-flight runs (they keep what they measured)`);
    runner.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
