import { readEnv } from "../env";
import { closeOnSignals, runMain } from "../lib/lifecycle";
import { startGateway } from "./server";

runMain(async () => {
  const env = readEnv();
  const gateway = await startGateway({
    port: env.BENCHBOARD_GATEWAY_PORT,
    host: env.BENCHBOARD_TARGETS_HOST,
    config: env.BENCHBOARD_GATEWAY_CONFIG,
  });
  console.log(`[gateway] ${gateway.url}  (POST /v1/chat/completions, /metrics, /admin/config)`);
  closeOnSignals(
    [{ name: "gateway", close: (grace) => gateway.close(grace) }],
    env.BENCHBOARD_TARGETS_SHUTDOWN_GRACE_MS,
  );
});
