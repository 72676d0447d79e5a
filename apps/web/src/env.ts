import { parseTrustedProxies } from "@benchboard/api/client-address";
import { mailSettingsEnv, secretKeyEnv, sharedRunEnv } from "@benchboard/api/shared-env";
import { type InstallSettings, installSettingsFromEnv } from "@benchboard/core";
import { z } from "zod";

// The only place the web app reads process.env (server side).
const ZEnv = z.object({
  ...sharedRunEnv,
  /** 32 bytes, base64: encrypts target secrets at rest. Without it, secrets cannot be stored. */
  BENCHBOARD_SECRET_KEY: secretKeyEnv(
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
   * Account mail (password reset links): BENCHBOARD_SMTP_URL, the operator's mail server (e.g.
   * `smtp://user:pass@mail.example.com:587`); BENCHBOARD_MAIL_FROM, its sender (e.g.
   * `Benchboard <bench@example.com>`), needed with BENCHBOARD_SMTP_URL; without a server, mail (its
   * links open accounts) is appended to BENCHBOARD_MAIL_LOG, readable by the server's user only
   * (mode 0600). Relative paths start at the working directory.
   */
  ...mailSettingsEnv(
    "BENCHBOARD_SMTP_URL must be an smtp:// or smtps:// URL, e.g. smtp://user:pass@mail.example.com:587",
  ),
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
