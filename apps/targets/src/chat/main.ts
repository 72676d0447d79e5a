import { maskUrl, readEnv } from "../env";
import { closeOnSignals, runMain } from "../lib/lifecycle";
import { startChat } from "./server";

runMain(async () => {
  const env = readEnv();
  const chat = await startChat({
    port: env.BENCHBOARD_CHAT_PORT,
    host: env.BENCHBOARD_TARGETS_HOST,
    config: env.BENCHBOARD_CHAT_CONFIG,
    amqpUrl: env.AMQP_URL,
    prefix: env.BENCHBOARD_CHAT_PREFIX,
    instanceId: env.BENCHBOARD_CHAT_INSTANCE_ID,
  });
  console.log(`[chat] ${chat.wsUrl}  (http ${chat.url}; queue ${chat.queue} on ${maskUrl(env.AMQP_URL)})`);
  closeOnSignals([{ name: "chat", close: (grace) => chat.close(grace) }], env.BENCHBOARD_TARGETS_SHUTDOWN_GRACE_MS);
});
