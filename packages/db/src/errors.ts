/** A referenced row does not exist in the caller's organization; `field` names the input. */
export class NotFoundError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = "NotFoundError";
  }
}

/** The input is well-formed but conflicts with what is stored; `field` names the input. */
export class ConflictError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = "ConflictError";
  }
}

const UNAVAILABLE_CODES = new Set([
  // The socket: refused, reset, timed out, closed under us.
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  // PostgreSQL: connection exceptions (class 08), shutting down or starting up (57P01–57P03).
  "08000",
  "08001",
  "08003",
  "08004",
  "08006",
  "57P01",
  "57P02",
  "57P03",
  // Prisma: cannot reach, timed out, connection closed.
  "P1001",
  "P1002",
  "P1017",
]);
const UNAVAILABLE_MESSAGE =
  /ECONNREFUSED|ECONNRESET|Connection terminated|connection (?:is )?closed|Can't reach database|the database system is (?:starting up|shutting down|in recovery mode)|terminating connection due to administrator command|timeout exceeded when trying to connect/i;

/**
 * The error says PostgreSQL could not be reached (down, restarting, connection lost), as opposed
 * to a refused query: the operation may succeed if tried again shortly.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const seen = new Set<unknown>();
  let current: unknown = err;
  while (current && typeof current === "object" && !seen.has(current)) {
    seen.add(current);
    const e = current as { code?: unknown; message?: unknown; cause?: unknown; originalCode?: unknown };
    if (typeof e.code === "string" && UNAVAILABLE_CODES.has(e.code)) return true;
    if (typeof e.originalCode === "string" && UNAVAILABLE_CODES.has(e.originalCode)) return true;
    if (typeof e.message === "string" && UNAVAILABLE_MESSAGE.test(e.message)) return true;
    current = e.cause;
  }
  return false;
}

/**
 * Run `operation`, trying again while PostgreSQL is unreachable (a restart, a failover), for at
 * most `forMs`; any other error, or the last one, is thrown.
 */
export async function whileDatabaseReturns<T>(
  operation: () => Promise<T>,
  options: { forMs?: number; log?: (line: string) => void; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + (options.forMs ?? 120_000);
  let delayMs = 250;
  let told = false;
  for (;;) {
    try {
      return await operation();
    } catch (err) {
      if (!isDatabaseUnavailable(err) || Date.now() + delayMs > deadline) throw err;
      if (!told) options.log?.(`${options.what ?? "database write"}: PostgreSQL is unreachable; trying again`);
      told = true;
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      delayMs = Math.min(delayMs * 2, 5_000);
    }
  }
}

/**
 * The database cannot take the work now (no connection freed up in time); nothing was stored.
 * Callers answer 503 with Retry-After, and a retry with the same idempotency key is safe.
 */
export class BusyError extends Error {
  constructor(
    message: string,
    /** Seconds after which a retry is likely to be taken. */
    readonly retryAfterS = 2,
  ) {
    super(message);
    this.name = "BusyError";
  }
}

/** Prisma's "unable to start a transaction in the given time" (every connection busy). */
export function isTransactionStartTimeout(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { code?: unknown }).code === "P2028";
}
