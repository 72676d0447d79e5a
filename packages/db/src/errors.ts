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
