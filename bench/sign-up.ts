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
import { randomBytes } from "node:crypto";
import { createConsoleMailer } from "../packages/api/src/mail.ts";
import { createCaller } from "../packages/api/src/root.ts";
import { signUp } from "../packages/db/src/index.ts";
import { createTestDatabase } from "../packages/db/src/testing.ts";
import { createRunsQueue, DEFAULT_REDIS_URL } from "../packages/jobs/src/index.ts";
import { envNumber, fmt, loadAverage } from "./lib.ts";

const REQUESTS = envNumber("BENCH_REQUESTS", 40);

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

async function main() {
  console.log(`load average before: ${loadAverage()}`);
  const t = await createTestDatabase();
  const queue = createRunsQueue(
    process.env.REDIS_URL ?? DEFAULT_REDIS_URL,
    `bbbench-${randomBytes(4).toString("hex")}`,
  );
  try {
    // The install's first account exists, so every sign-up below is an ordinary one.
    await signUp(t.db, { email: "operator@example.test", password: "a long password" });
    const accounts: string[] = [];
    for (let i = 0; i < 10; i++) {
      accounts.push((await signUp(t.db, { email: `known-${i}@example.test`, password: "a long password" })).email);
    }
    const cookies: string[] = [];
    const caller = createCaller({
      db: t.db,
      queue,
      orgId: null,
      userId: null,
      role: null,
      mailer: createConsoleMailer(() => {}),
      publicUrl: "https://bench.example.test",
      session: { token: null, set: (token) => cookies.push(token), clear: () => {} },
    });
    const times = { registered: [] as number[], new: [] as number[] };
    const order = [...Array(REQUESTS).fill("registered"), ...Array(REQUESTS).fill("new")] as ("registered" | "new")[];
    order.sort(() => Math.random() - 0.5);
    // Warm the connection pool, the query plans and scrypt before measuring.
    for (let i = 0; i < 5; i++) {
      await caller.auth.signUp({ email: `warm-${i}@example.test`, password: "a long password" });
    }
    for (const [i, kind] of order.entries()) {
      const email = kind === "registered" ? accounts[i % accounts.length]! : `new-${i}@example.test`;
      const started = process.hrtime.bigint();
      await caller.auth.signUp({ email, password: "a long password" });
      times[kind].push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    if (cookies.length) throw new Error(`sign-up set ${cookies.length} session cookies`);
    const registered = times.registered.sort((a, b) => a - b);
    const fresh = times.new.sort((a, b) => a - b);
    console.log("| email | requests | median ms | p90 ms |");
    console.log("| --- | --- | --- | --- |");
    for (const [label, list] of [
      ["registered", registered],
      ["new", fresh],
    ] as const) {
      console.log(`| ${label} | ${list.length} | ${fmt(quantile(list, 0.5), 2)} | ${fmt(quantile(list, 0.9), 2)} |`);
    }
    console.log(
      `new / registered, medians: ${fmt(quantile(fresh, 0.5) / quantile(registered, 0.5), 2)} (goal 0.8–1.25)`,
    );
  } finally {
    await queue.close();
    await t.drop();
  }
  console.log(`load average after: ${loadAverage()}`);
}

await main();
