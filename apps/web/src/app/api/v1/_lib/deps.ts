import "server-only";
import type { AgentRestDeps, RestDeps } from "@benchboard/api/rest/index";
import { getDb } from "@benchboard/db";
import { type AgentJobTaker, createAgentJobTaker } from "@benchboard/jobs";
import { env, installSettings, secretKey } from "~/env";
import { getQueue, getQueueFor, getRateLimiter } from "~/server/context";
import { linkBaseUrl } from "~/server/request-origin";

// The same process-wide queues and rate limiter the tRPC handler uses, so the app holds one Redis
// connection of each kind whichever route is hit first, and every launch dispatches alike.
export function restDeps(): RestDeps {
  return {
    db: getDb(env.DATABASE_URL),
    queue: getQueue(),
    queueFor: getQueueFor(),
    rateLimit: getRateLimiter(),
    secretKey,
    install: installSettings,
    // Links in responses (a run's url, Location) point at the configured public URL, like mail.
    publicUrl: linkBaseUrl,
  };
}

const globals = globalThis as unknown as { benchboardAgentJobs?: AgentJobTaker };

/** REST deps plus what the agent routes need: taking jobs from the agents' queues. */
export function agentDeps(): AgentRestDeps {
  globals.benchboardAgentJobs ??= createAgentJobTaker(env.REDIS_URL, env.BENCHBOARD_QUEUE_PREFIX);
  return { ...restDeps(), agentJobs: globals.benchboardAgentJobs };
}
