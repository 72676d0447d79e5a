/**
 * Does sign-up answer a registered email as fast as a new one? Both go through the real
 * procedure (PostgreSQL, no rate limit) in random order, so the machine's load falls on both
 * alike. Neither gets a session; the mail (a confirmation link, or "you already have an account")
 * is sent after answering and is not part of the time measured.
 *
 *   pnpm exec tsx bench/sign-up.ts
 *
 * Prints median and p90 for each kind and the new/registered ratio of medians (goal: 0.8–1.25).
 * Knob: BENCH_REQUESTS (40 of each kind; each hashes a password, about 0.4 s per request).
 */
import { signUp } from "../packages/db/src/index.ts";
import { BENCH_PASSWORD, compareAnswerTimes } from "./answer-times.ts";
import { envNumber } from "./lib.ts";

await compareAnswerTimes({
  kinds: ["registered", "new"],
  requests: envNumber("BENCH_REQUESTS", 40),
  accounts: 10,
  // The install's first account exists, so every sign-up measured is an ordinary one.
  prepare: async (t) => {
    await signUp(t.db, { email: "operator@example.test", password: BENCH_PASSWORD });
  },
  // Warm the connection pool, the query plans and scrypt before measuring.
  warm: async (caller) => {
    for (let i = 0; i < 5; i++) await caller.auth.signUp({ email: `warm-${i}@example.test`, password: BENCH_PASSWORD });
  },
  request: (caller, email) => caller.auth.signUp({ email, password: BENCH_PASSWORD }),
});
