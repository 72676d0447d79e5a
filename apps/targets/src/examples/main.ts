import { maskUrl, readEnv } from "../env";
import { closeOnSignals, runMain } from "../lib/lifecycle";
import { startExamples } from "./server";

runMain(async () => {
  const env = readEnv();
  const examples = await startExamples({
    port: env.BENCHBOARD_EXAMPLES_PORT,
    host: env.BENCHBOARD_TARGETS_HOST,
    config: env.BENCHBOARD_EXAMPLES_CONFIG,
    databaseUrl: env.DATABASE_URL,
    database: env.BENCHBOARD_EXAMPLES_DATABASE,
  });
  console.log(
    `[examples] ${examples.url}  (light /, medium POST /api/customers, heavy /200/200; database ${env.BENCHBOARD_EXAMPLES_DATABASE} on ${maskUrl(env.DATABASE_URL)})`,
  );
  closeOnSignals(
    [{ name: "examples", close: (grace) => examples.close(grace) }],
    env.BENCHBOARD_TARGETS_SHUTDOWN_GRACE_MS,
  );
});
