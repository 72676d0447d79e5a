/**
 * The parts of a run's snapshots that are shown to people: what the run ran with, without row
 * bookkeeping, and without header values (scenario headers often carry tokens; a target's secret
 * headers are never in a snapshot, but its plain ones are not needed to read a result).
 */

const BOOKKEEPING = new Set(["id", "orgId", "projectId", "createdAt", "updatedAt", "clonedFromId"]);
export const REDACTED = "•••";

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function withoutBookkeeping(value: Json): Json {
  return Object.fromEntries(Object.entries(value).filter(([k]) => !BOOKKEEPING.has(k)));
}

/**
 * Headers that describe the message, never who sends it: shown as they are, so a run's page says
 * `content-type: application/json` instead of hiding it like a token.
 */
const DESCRIPTIVE_HEADERS = new Set([
  "accept",
  "accept-encoding",
  "accept-language",
  "cache-control",
  "connection",
  "content-encoding",
  "content-language",
  "content-type",
  "pragma",
  "user-agent",
]);

function headerValue(name: unknown, value: unknown): unknown {
  return typeof name === "string" && typeof value === "string" && DESCRIPTIVE_HEADERS.has(name.toLowerCase())
    ? value
    : REDACTED;
}

/**
 * Replace every header value (any `headers` object or `[{ name, value }]` list) at any depth,
 * except the descriptive headers above.
 */
export function redactHeaders(value: unknown, underHeaders = false): unknown {
  if (Array.isArray(value)) {
    return value.map((item) =>
      underHeaders && isObject(item) && "value" in item
        ? { ...item, value: headerValue(item.name, item.value) }
        : redactHeaders(item),
    );
  }
  if (!isObject(value)) return underHeaders ? REDACTED : value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => {
      if (k === "headers") {
        if (Array.isArray(v)) return [k, redactHeaders(v, true)];
        if (isObject(v))
          return [k, Object.fromEntries(Object.entries(v).map(([name, x]) => [name, headerValue(name, x)]))];
      }
      return [k, underHeaders ? REDACTED : redactHeaders(v)];
    }),
  );
}

export function publicConfigSnapshot(snapshot: unknown): Json | null {
  return isObject(snapshot) ? withoutBookkeeping(snapshot) : null;
}

export function publicScenarioSnapshot(snapshot: unknown): Json | null {
  return isObject(snapshot) ? (redactHeaders(withoutBookkeeping(snapshot)) as Json) : null;
}

export function publicTargetSnapshot(
  snapshot: unknown,
): { name: string; kind: string | null; baseUrl: string | null } | null {
  if (!isObject(snapshot)) return null;
  const text = (v: unknown) => (typeof v === "string" ? v : null);
  return { name: text(snapshot.name) ?? "target", kind: text(snapshot.kind), baseUrl: text(snapshot.baseUrl) };
}
