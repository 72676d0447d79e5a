import { z } from "zod";

// The only place the web app reads process.env (server side).
const ZEnv = z.object({
  DATABASE_URL: z.string().default("postgresql://benchboard:benchboard@127.0.0.1:5432/benchboard"),
  REDIS_URL: z.string().default("redis://127.0.0.1:6379"),
  BENCHBOARD_QUEUE_PREFIX: z.string().default("bull"),
});

export const env = ZEnv.parse(process.env);
