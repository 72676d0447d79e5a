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
