/**
 * Does the answer to "forgot password" take as long for an unknown email as for an account?
 * Both kinds of request go through the real procedure (PostgreSQL, no rate limit), interleaved
 * in random order so that the machine's load falls on both alike; the mail itself is sent after
 * answering and is not part of the time measured.
 *
 *   pnpm exec tsx bench/password-reset.ts
 *
 * Prints median and p90 for each kind and the unknown/registered ratio of medians (goal: 0.8–1.25).
 * Knob: BENCH_REQUESTS (200 of each kind).
 */
import { compareAnswerTimes } from "./answer-times.ts";
import { envNumber } from "./lib.ts";

await compareAnswerTimes({
  kinds: ["registered", "unknown"],
  requests: envNumber("BENCH_REQUESTS", 200),
  accounts: 20,
  // Warm the connection pool and the query plans before measuring.
  warm: async (caller, accounts) => {
    for (let i = 0; i < 20; i++) await caller.auth.requestPasswordReset({ email: accounts[i % accounts.length]! });
  },
  request: (caller, email) => caller.auth.requestPasswordReset({ email }),
});
