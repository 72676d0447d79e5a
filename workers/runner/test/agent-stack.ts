import { createRedisRateLimiter } from "@benchboard/api";
import type { AgentRestDeps } from "@benchboard/api/rest/index";
import { allowLoopbackTargets, createTestDatabase, type TestDatabase } from "@benchboard/db/testing";
import { type AgentJobTaker, createAgentJobTaker, createQueueFor, createRunsQueue } from "@benchboard/jobs";
import type { Queue } from "bullmq";
import { Redis } from "ioredis";
import { startRestServer } from "./rest-server";

/**
 * What a test of load agents stands on, all real: a fresh database that lets targets on
 * loopback, the runs queue and its per-organization agent queues under `prefix`, the agents' job
 * taker, a rate limiter on Redis, and the REST routes agents and the CLI call, served over HTTP.
 */
export interface AgentStack {
  t: TestDatabase;
  queue: Queue;
  queueFor: ReturnType<typeof createQueueFor>;
  agentJobs: AgentJobTaker;
  /** The rate limiter's connection, for tests that look at Redis itself. */
  redis: Redis;
  rest: Awaited<ReturnType<typeof startRestServer>>;
  /** Stops the REST server and the job taker, removes the queues and drops the database. */
  close(): Promise<void>;
}

export async function startAgentStack(redisUrl: string, prefix: string): Promise<AgentStack> {
  const t = await createTestDatabase();
  await allowLoopbackTargets(t.db);
  const queue = createRunsQueue(redisUrl, prefix);
  const queueFor = createQueueFor(redisUrl, prefix, queue);
  const redis = new Redis(redisUrl);
  const agentJobs = createAgentJobTaker(redisUrl, prefix);
  const deps: AgentRestDeps = {
    db: t.db,
    queue,
    queueFor,
    rateLimit: createRedisRateLimiter(redis, `${prefix}:rl:`),
    agentJobs,
  };
  const rest = await startRestServer(deps);
  return {
    t,
    queue,
    queueFor,
    agentJobs,
    redis,
    rest,
    async close() {
      await rest.close();
      await agentJobs.close();
      await queueFor.closeAll();
      await queue.obliterate({ force: true }).catch(() => {});
      await queue.close();
      redis.disconnect();
      await t.drop();
    },
  };
}
