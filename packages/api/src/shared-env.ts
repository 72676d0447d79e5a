import { z } from "zod";

/**
 * Settings the web app and the worker both read from their environment, checked alike in both:
 * they must agree on where runs are stored and queued, and on when a run counts as stuck.
 */
export const sharedRunEnv = {
  DATABASE_URL: z.string().default("postgresql://benchboard:benchboard@127.0.0.1:5432/benchboard"),
  REDIS_URL: z.string().default("redis://127.0.0.1:6379"),
  BENCHBOARD_QUEUE_PREFIX: z.string().default("bull"),
  /** A running run whose worker wrote no heartbeat for this long is ended as failed. */
  BENCHBOARD_RUN_STALE_AFTER_MS: z.coerce.number().int().min(3_000).max(3_600_000).default(20_000),
  /**
   * A run the job queue (Redis) could not take for this long ends failed; until then it stays
   * queued. So does an agent run no agent took for this long after it was put on its label's queue.
   */
  BENCHBOARD_QUEUE_GIVE_UP_S: z.coerce
    .number()
    .int()
    .min(10)
    .max(7 * 86_400)
    .default(900),
};

/**
 * BENCHBOARD_SECRET_KEY, 32 bytes in base64: the web app encrypts target secrets at rest with it
 * and the worker decrypts them for runs. `message` is how each process words a bad key.
 */
export function secretKeyEnv(message: string) {
  return z
    .string()
    .trim()
    .optional()
    .refine((v) => !v || Buffer.from(v, "base64").length === 32, message);
}

/**
 * The mail settings of the web app (account mail) and the worker (email notifications): the
 * operator's SMTP server, the sender, and the file mail goes to without a server.
 * `smtpUrlMessage` is how each process words a bad URL.
 */
export function mailSettingsEnv(smtpUrlMessage: string) {
  return {
    BENCHBOARD_SMTP_URL: z
      .string()
      .trim()
      .default("")
      .refine((v) => !v || (URL.canParse(v) && /^smtps?:$/.test(new URL(v).protocol)), smtpUrlMessage),
    BENCHBOARD_MAIL_FROM: z.string().trim().max(320).default(""),
    BENCHBOARD_MAIL_LOG: z.string().trim().min(1).max(1000).default(".data/mail.log"),
  };
}
