/**
 * Does the answer to "forgot password" take as long for an unknown email as for an account?
 * Both kinds of request go through the real procedure (PostgreSQL, no rate limit), interleaved
 * in random order so that the machine's load falls on both alike; the mail itself is sent after
 * answering and is not part of the time measured.
 *
 *   pnpm exec tsx bench/password-reset.ts
 *
 * Prints median and p90 for each kind and the unknown/known ratio of medians (goal: 0.8–1.25).
 * Knob: BENCH_REQUESTS (200 of each kind).
 */
import { randomBytes } from "node:crypto";
import { createConsoleMailer } from "../packages/api/src/mail.ts";
import { createCaller } from "../packages/api/src/root.ts";
import { signUp } from "../packages/db/src/index.ts";
import { createTestDatabase } from "../packages/db/src/testing.ts";
import { createRunsQueue, DEFAULT_REDIS_URL } from "../packages/jobs/src/index.ts";
import { envNumber, fmt, loadAverage } from "./lib.ts";

const REQUESTS = envNumber("BENCH_REQUESTS", 200);

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

async function main() {
  console.log(`load average before: ${loadAverage()}`);
  const t = await createTestDatabase();
  const queue = createRunsQueue(
    process.env.REDIS_URL ?? DEFAULT_REDIS_URL,
    `bbbench-${randomBytes(4).toString("hex")}`,
  );
  try {
    const accounts: string[] = [];
    for (let i = 0; i < 20; i++) {
      accounts.push((await signUp(t.db, { email: `known-${i}@example.test`, password: "a long password" })).email);
    }
    const caller = createCaller({
      db: t.db,
      queue,
      orgId: null,
      userId: null,
      role: null,
      mailer: createConsoleMailer(() => {}),
      publicUrl: "https://bench.example.test",
    });
    const times = { known: [] as number[], unknown: [] as number[] };
    const order = [...Array(REQUESTS).fill("known"), ...Array(REQUESTS).fill("unknown")] as ("known" | "unknown")[];
    order.sort(() => Math.random() - 0.5);
    // Warm the connection pool and the query plans before measuring.
    for (let i = 0; i < 20; i++) await caller.auth.requestPasswordReset({ email: accounts[i % accounts.length]! });
    for (const [i, kind] of order.entries()) {
      const email = kind === "known" ? accounts[i % accounts.length]! : `nobody-${i}@example.test`;
      const started = process.hrtime.bigint();
      await caller.auth.requestPasswordReset({ email });
      times[kind].push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    const known = times.known.sort((a, b) => a - b);
    const unknown = times.unknown.sort((a, b) => a - b);
    console.log("| email | requests | median ms | p90 ms |");
    console.log("| --- | --- | --- | --- |");
    console.log(`| registered | ${known.length} | ${fmt(quantile(known, 0.5), 2)} | ${fmt(quantile(known, 0.9), 2)} |`);
    console.log(
      `| unknown | ${unknown.length} | ${fmt(quantile(unknown, 0.5), 2)} | ${fmt(quantile(unknown, 0.9), 2)} |`,
    );
    console.log(
      `unknown / registered, medians: ${fmt(quantile(unknown, 0.5) / quantile(known, 0.5), 2)} (goal 0.8–1.25)`,
    );
  } finally {
    await queue.close();
    await t.drop();
  }
  console.log(`load average after: ${loadAverage()}`);
}

await main();
