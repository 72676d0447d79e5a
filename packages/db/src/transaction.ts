import type { Db } from "./client";
import type { Prisma } from "./generated/prisma/client";

/** Thrown inside the transaction to roll it back while handing out what the work returned. */
class RollBack {
  constructor(readonly value: unknown) {}
}

export interface OneTransactionOptions {
  /** Run everything, then undo it: a dry run that meets every check a real run would. */
  rollBack?: boolean;
  /** How long the work may hold the transaction (it may wait on DNS or address checks). */
  timeoutMs?: number;
}

/**
 * Runs `work` against a database handle whose every read and write belongs to one interactive
 * transaction: all of it commits, or — on a throw, or with `rollBack` — none of it does. Code
 * written for a plain handle runs unchanged, including code that opens its own transaction: a
 * nested `$transaction` joins this one instead of committing on its own.
 */
export async function inOneTransaction<T>(
  db: Db,
  work: (tx: Db) => Promise<T>,
  options: OneTransactionOptions = {},
): Promise<T> {
  try {
    return await db.$transaction(
      async (tx) => {
        const value = await work(joinable(tx));
        if (options.rollBack) throw new RollBack(value);
        return value;
      },
      { timeout: options.timeoutMs ?? 60_000, maxWait: 10_000 },
    );
  } catch (err) {
    if (err instanceof RollBack) return err.value as T;
    throw err;
  }
}

function joinable(tx: Prisma.TransactionClient): Db {
  const handle: Db = new Proxy(tx, {
    get(target, prop, receiver) {
      if (prop === "$transaction") {
        return (arg: unknown) =>
          typeof arg === "function" ? (arg as (inner: Db) => Promise<unknown>)(handle) : Promise.all(arg as unknown[]);
      }
      return Reflect.get(target, prop, receiver);
    },
  }) as unknown as Db;
  return handle;
}
