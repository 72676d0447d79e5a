import { startChat } from "./chat/server";
import { maskUrl, readEnv } from "./env";
import { startExamples } from "./examples/server";
import { startGateway } from "./gateway/server";
import { type Closable, closeOnSignals, runMain } from "./lib/lifecycle";

/** All three reference targets in one process, for `pnpm up` and demos. */
runMain(async () => {
  const env = readEnv();
  const started: Closable[] = [];
  try {
    const gateway = await startGateway({
      port: env.BENCHBOARD_GATEWAY_PORT,
      host: env.BENCHBOARD_TARGETS_HOST,
      config: env.BENCHBOARD_GATEWAY_CONFIG,
    });
    started.push({ name: "gateway", close: (grace) => gateway.close(grace) });
    const chat = await startChat({
      port: env.BENCHBOARD_CHAT_PORT,
      host: env.BENCHBOARD_TARGETS_HOST,
      config: env.BENCHBOARD_CHAT_CONFIG,
      amqpUrl: env.AMQP_URL,
      prefix: env.BENCHBOARD_CHAT_PREFIX,
      instanceId: env.BENCHBOARD_CHAT_INSTANCE_ID,
    });
    started.push({ name: "chat", close: (grace) => chat.close(grace) });
    const examples = await startExamples({
      port: env.BENCHBOARD_EXAMPLES_PORT,
      host: env.BENCHBOARD_TARGETS_HOST,
      config: env.BENCHBOARD_EXAMPLES_CONFIG,
      databaseUrl: env.DATABASE_URL,
      database: env.BENCHBOARD_EXAMPLES_DATABASE,
    });
    started.push({ name: "examples", close: (grace) => examples.close(grace) });

    console.log("Benchboard reference targets:");
    console.log(`  gateway   ${gateway.url}   POST /v1/chat/completions`);
    console.log(`  chat      ${chat.wsUrl}   queue ${chat.queue} on ${maskUrl(env.AMQP_URL)}`);
    console.log(`  examples  ${examples.url}   /  POST /api/customers  /200/200`);
    console.log("  each: GET /metrics, GET|PUT|PATCH /admin/config, GET /health");
  } catch (error) {
    // A target that failed to start must not leave the others holding their ports.
    await Promise.allSettled(started.map((service) => service.close(0)));
    throw error;
  }
  closeOnSignals(started, env.BENCHBOARD_TARGETS_SHUTDOWN_GRACE_MS);
});
