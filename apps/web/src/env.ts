import { parseTrustedProxies } from "@benchboard/api/client-address";
import { type InstallSettings, installSettingsFromEnv } from "@benchboard/core";
import { z } from "zod";

// The only place the web app reads process.env (server side).
const ZEnv = z.object({
  DATABASE_URL: z.string().default("postgresql://benchboard:benchboard@127.0.0.1:5432/benchboard"),
  REDIS_URL: z.string().default("redis://127.0.0.1:6379"),
  BENCHBOARD_QUEUE_PREFIX: z.string().default("bull"),
  /** A running run whose worker wrote no heartbeat for this long is ended as failed (as in the worker). */
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
  /** 32 bytes, base64: encrypts target secrets at rest. Without it, secrets cannot be stored. */
  BENCHBOARD_SECRET_KEY: z
    .string()
    .trim()
    .optional()
    .refine(
      (v) => !v || Buffer.from(v, "base64").length === 32,
      "BENCHBOARD_SECRET_KEY must be 32 bytes in base64 (head -c 32 /dev/urandom | base64)",
    ),
  /**
   * Proxies (addresses or CIDR ranges, comma-separated) whose X-Forwarded-For / -Host / -Proto
   * are believed. Empty: every client is the socket's peer.
   */
  BENCHBOARD_TRUSTED_PROXIES: z
    .string()
    .default("")
    .superRefine((v, ctx) => {
      try {
        parseTrustedProxies(v);
      } catch (err) {
        ctx.addIssue({ code: "custom", message: (err as Error).message });
      }
    }),
  /** Days after which a run's per-second series are downsampled to 10 s (unset: kept forever). */
  BENCHBOARD_RETAIN_DETAIL_DAYS: z.preprocess(
    (v) => (v === "" ? undefined : v),
    z.coerce.number().int().min(1).max(36_500).optional(),
  ),
  /** Set by server.mjs: the header that carries the socket's peer address. */
  BENCHBOARD_PEER_HEADER: z.string().optional(),
  /**
   * The URL(s) people reach the app at, comma-separated (e.g. `https://bench.example.com`).
   * Requests for any other host are answered 421, so a DNS name rebound to this server gets
   * nothing. Default: the address and port the server listens on (and localhost for loopback).
   */
  BENCHBOARD_PUBLIC_URL: z
    .string()
    .default("")
    .superRefine((v, ctx) => {
      for (const item of v
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean)) {
        if (!URL.canParse(item) || !/^https?:$/.test(new URL(item).protocol)) {
          ctx.addIssue({ code: "custom", message: `BENCHBOARD_PUBLIC_URL: ${item} is not an http(s) URL` });
        }
      }
    }),
  /** Set by server.mjs: the address and port it listens on (host:port). */
  BENCHBOARD_LISTEN: z.string().optional(),
  PORT: z.string().optional(),
  /**
   * The operator's mail server for account mail (password reset links), e.g.
   * `smtp://user:pass@mail.example.com:587`. Unset: messages go to BENCHBOARD_MAIL_LOG.
   */
  BENCHBOARD_SMTP_URL: z
    .string()
    .trim()
    .default("")
    .refine(
      (v) => !v || (URL.canParse(v) && /^smtps?:$/.test(new URL(v).protocol)),
      "BENCHBOARD_SMTP_URL must be an smtp:// or smtps:// URL, e.g. smtp://user:pass@mail.example.com:587",
    ),
  /** The sender of account mail, e.g. `Benchboard <bench@example.com>`; needed with BENCHBOARD_SMTP_URL. */
  BENCHBOARD_MAIL_FROM: z.string().trim().max(320).default(""),
  /**
   * Without BENCHBOARD_SMTP_URL, account mail (its links open accounts) is appended to this file,
   * readable by the server's user only (mode 0600). Relative paths start at the working directory.
   */
  BENCHBOARD_MAIL_LOG: z.string().trim().min(1).max(1000).default(".data/mail.log"),
  /** Minutes a password reset link works. */
  BENCHBOARD_PASSWORD_RESET_TTL_MIN: z.preprocess(
    (v) => (v === "" ? undefined : v),
    z.coerce
      .number()
      .int()
      .min(5)
      .max(24 * 60)
      .default(30),
  ),
});

export const env = ZEnv.superRefine((v, ctx) => {
  if (v.BENCHBOARD_SMTP_URL && !v.BENCHBOARD_MAIL_FROM) {
    ctx.addIssue({
      code: "custom",
      path: ["BENCHBOARD_MAIL_FROM"],
      message: "BENCHBOARD_MAIL_FROM is needed with BENCHBOARD_SMTP_URL (the sender of account mail)",
    });
  }
}).parse(process.env);

/** Detail retention in days, or null when runs keep their per-second detail forever. */
export const retainDetailDays: number | null = env.BENCHBOARD_RETAIN_DETAIL_DAYS ?? null;

export const trustedProxies = parseTrustedProxies(env.BENCHBOARD_TRUSTED_PROXIES);

/** The key for secrets at rest, or null when none is configured. */
export const secretKey: Buffer | null = env.BENCHBOARD_SECRET_KEY
  ? Buffer.from(env.BENCHBOARD_SECRET_KEY, "base64")
  : null;

/**
 * Install settings from the environment: BENCHBOARD_ALLOWED_TARGETS, BENCHBOARD_SIGNUP and
 * BENCHBOARD_DEFAULT_MAX_* (the operator's page can change them; stored edits win).
 */
export const installSettings: InstallSettings = installSettingsFromEnv(process.env);
