import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "./root";

export { runLifecycleDeps } from "./lifecycle";
export { createConsoleMailer, createSmtpMailer, type Mailer, mailerFromSettings } from "./mail";
export {
  createFallbackRateLimiter,
  createMemoryRateLimiter,
  createRedisRateLimiter,
  noRateLimit,
  type RateLimiter,
} from "./rate-limit";
export { type AppRouter, appRouter, createCaller } from "./root";
export type { Context, ProcedureMeta, Role, SessionControl } from "./trpc";

export type RouterInputs = inferRouterInputs<AppRouter>;
export type RouterOutputs = inferRouterOutputs<AppRouter>;
