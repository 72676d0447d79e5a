/**
 * The skeleton of the benches that ask whether an anonymous auth procedure answers two kinds of
 * email (say, registered and unknown) equally fast: a fresh test database with some accounts, an
 * anonymous caller, both kinds interleaved in random order so the machine's load falls on both
 * alike, and a table of median and p90 per kind with the ratio of medians.
 */
import { randomBytes } from "node:crypto";
import { createConsoleMailer } from "../packages/api/src/mail.ts";
import { createCaller } from "../packages/api/src/root.ts";
import { signUp } from "../packages/db/src/index.ts";
import { createTestDatabase, type TestDatabase } from "../packages/db/src/testing.ts";
import { createRunsQueue, DEFAULT_REDIS_URL } from "../packages/jobs/src/index.ts";
import { fmt, loadAverage } from "./lib.ts";

export const BENCH_PASSWORD = "a long password";

type Caller = ReturnType<typeof createCaller>;

export interface AnswerTimesOptions<K extends string> {
  /** The two kinds, the reference first: the ratio printed is the second's median over the first's. */
  kinds: readonly [K, K];
  requests: number;
  /** Accounts signed up before measuring, `known-<i>@example.test`; requests of the first kind use them. */
  accounts: number;
  /** Runs before the accounts are made (e.g. the install's first account). */
  prepare?: (t: TestDatabase) => Promise<void>;
  /** Warms the connection pool, the query plans and anything the procedure caches. */
  warm: (caller: Caller, accounts: string[]) => Promise<void>;
  /** One measured request; `email` is an account for the first kind, `<kind>-<i>@example.test` otherwise. */
  request: (caller: Caller, email: string) => Promise<unknown>;
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

export async function compareAnswerTimes<K extends string>(options: AnswerTimesOptions<K>): Promise<void> {
  const [reference, other] = options.kinds;
  console.log(`load average before: ${loadAverage()}`);
  const t = await createTestDatabase();
  const queue = createRunsQueue(
    process.env.REDIS_URL ?? DEFAULT_REDIS_URL,
    `bbbench-${randomBytes(4).toString("hex")}`,
  );
  try {
    await options.prepare?.(t);
    const accounts: string[] = [];
    for (let i = 0; i < options.accounts; i++) {
      accounts.push((await signUp(t.db, { email: `known-${i}@example.test`, password: BENCH_PASSWORD })).email);
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
    const times = new Map<K, number[]>([
      [reference, []],
      [other, []],
    ]);
    const order = [...Array(options.requests).fill(reference), ...Array(options.requests).fill(other)] as K[];
    order.sort(() => Math.random() - 0.5);
    await options.warm(caller, accounts);
    for (const [i, kind] of order.entries()) {
      const email = kind === reference ? accounts[i % accounts.length]! : `${kind}-${i}@example.test`;
      const started = process.hrtime.bigint();
      await options.request(caller, email);
      times.get(kind)!.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    // None of these procedures may sign anyone in.
    if (cookies.length) throw new Error(`the procedure set ${cookies.length} session cookies`);
    const sorted = (kind: K) => times.get(kind)!.sort((a, b) => a - b);
    console.log("| email | requests | median ms | p90 ms |");
    console.log("| --- | --- | --- | --- |");
    for (const kind of options.kinds) {
      const list = sorted(kind);
      console.log(`| ${kind} | ${list.length} | ${fmt(quantile(list, 0.5), 2)} | ${fmt(quantile(list, 0.9), 2)} |`);
    }
    const ratio = quantile(sorted(other), 0.5) / quantile(sorted(reference), 0.5);
    console.log(`${other} / ${reference}, medians: ${fmt(ratio, 2)} (goal 0.8–1.25)`);
  } finally {
    await queue.close();
    await t.drop();
  }
  console.log(`load average after: ${loadAverage()}`);
}
