/**
 * Answers for the methods a REST route does not serve. Next.js answers those with a bare 405 and
 * no `Allow` header; RFC 9110 wants the header, and clients need it to learn what the path takes.
 */
const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"] as const;
type Method = (typeof METHODS)[number];
/** The methods a route may serve itself; HEAD follows GET. */
export type ServedMethod = Exclude<Method, "HEAD">;

/** Marks the handlers below, so that a walk over route files can tell them from real ones. */
export const METHOD_NOT_ALLOWED = "methodNotAllowed";

export type Refusal = ((req: Request) => Response) & { [METHOD_NOT_ALLOWED]: true };

/**
 * `OPTIONS` (204) and a 405 for each method other than `served`, all naming in `Allow` what the
 * path serves (HEAD wherever GET is, and OPTIONS).
 */
export function otherMethods(...served: ServedMethod[]): Record<Method | "OPTIONS", Refusal> {
  const allowed = [...served, ...(served.includes("GET") ? ["HEAD"] : []), "OPTIONS"];
  const allow = allowed.join(", ");
  const refuse = Object.assign(
    (req: Request) =>
      Response.json(
        { error: { message: `method ${req.method} is not allowed here; this path answers ${allow}` } },
        { status: 405, headers: { allow } },
      ),
    { [METHOD_NOT_ALLOWED]: true as const },
  );
  const options = Object.assign(() => new Response(null, { status: 204, headers: { allow } }), {
    [METHOD_NOT_ALLOWED]: true as const,
  });
  return Object.fromEntries([...METHODS.map((m) => [m, refuse]), ["OPTIONS", options]]) as Record<
    Method | "OPTIONS",
    Refusal
  >;
}
