import { z } from "zod";

/**
 * The only place that reads process.env. Names carry the `BENCHBOARD_` prefix because the
 * workspace's task runner passes only listed variables through (`BENCHBOARD_*` is one of them).
 */
const port = (fallback: number) =>
  z.coerce
    .number({ error: "must be a port number" })
    .int("must be a port number")
    .min(0, "must be from 0 to 65535")
    .max(65_535, "must be from 0 to 65535")
    .default(fallback);

/** Startup knobs as JSON, e.g. `BENCHBOARD_GATEWAY_CONFIG='{"buffer_size":15000}'`. */
const jsonObject = z
  .string()
  .optional()
  .transform((text, ctx) => {
    if (text === undefined || text.trim() === "") return {};
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: "custom", message: "must be a JSON object" });
      return z.NEVER;
    }
  });

const ZEnv = z.object({
  BENCHBOARD_TARGETS_HOST: z.string().min(1).default("127.0.0.1"),
  BENCHBOARD_GATEWAY_PORT: port(4100),
  BENCHBOARD_CHAT_PORT: port(4200),
  BENCHBOARD_EXAMPLES_PORT: port(4300),
  BENCHBOARD_GATEWAY_CONFIG: jsonObject,
  BENCHBOARD_CHAT_CONFIG: jsonObject,
  BENCHBOARD_EXAMPLES_CONFIG: jsonObject,
  AMQP_URL: z.string().min(1).default("amqp://guest:guest@127.0.0.1:5672"),
  /** Names the chat queue `<prefix>.instance.<id>`; defaults to the chat port. */
  BENCHBOARD_CHAT_INSTANCE_ID: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, "letters, digits, _ . - (at most 64)")
    .optional(),
  BENCHBOARD_CHAT_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, "letters, digits, _ . - (at most 64)")
    .default("chat"),
  DATABASE_URL: z.string().min(1).default("postgresql://benchboard:benchboard@127.0.0.1:5432/benchboard"),
  BENCHBOARD_EXAMPLES_DATABASE: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, "a lowercase PostgreSQL identifier")
    .default("benchboard_examples"),
  /** RabbitMQ management API (credentials in the URL), used by tests to inspect queues. */
  BENCHBOARD_RABBITMQ_MANAGEMENT_URL: z.string().min(1).default("http://guest:guest@127.0.0.1:15672"),
  /** How long in-flight requests may take to finish on SIGTERM/SIGINT before they are cut. */
  BENCHBOARD_TARGETS_SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(5_000),
});

export type TTargetsEnv = z.infer<typeof ZEnv>;

export function readEnv(source: NodeJS.ProcessEnv = process.env): TTargetsEnv {
  const parsed = ZEnv.safeParse(source);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`);
    throw new Error(`invalid environment:\n${lines.join("\n")}`);
  }
  return parsed.data;
}

/** A URL safe to print: the password is masked. */
export function maskUrl(url: string): string {
  return url.replace(/(:\/\/[^:/@]+:)[^@]+@/, "$1***@");
}
