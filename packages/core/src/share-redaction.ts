/**
 * What a share link shows when the sharer did not tick "include target details". Free text that
 * a target, a worker or a run's environment wrote can carry names anywhere, so what is shown is
 * decided by what each field is, not by spotting addresses in it:
 * - dropped: target and CI URLs, headers, worker ids, what the target's config hook reported;
 * - a scenario keeps only its name, engine and numeric load settings (rate, connections, …);
 * - errors keep their kind, status and count, never their message; a run's error and its
 *   invalid reasons are replaced by a fixed text; knob values that are text are hidden;
 * - any other text keeps its words with URLs, addresses, host:port and host names replaced.
 * Dates and other non-plain objects pass through unchanged.
 */
const HIDDEN = "[address hidden]";
const DETAILS_HIDDEN = "[details hidden: shared without target details]";
const URL_PATTERN = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi;
const IPV4_PATTERN = /\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?\b/g;
// IPv6 literals: bracketed, with "::", or four or more groups (times of day have three).
const IPV6_PATTERN =
  /\[[0-9a-f:.]+\](?::\d{1,5})?|(?<![\w:])(?:[0-9a-f]{1,4}:){3,7}[0-9a-f]{1,4}(?![\w:])|(?<![\w:])(?:[0-9a-f]{1,4}:)*:(?::[0-9a-f]{1,4})+(?![\w:])|(?<![\w:])(?:[0-9a-f]{1,4}:)+:(?![\w:])/gi;
// A name (with a letter somewhere: "12:30" is a time) and a port.
const HOST_PORT_PATTERN = /\b(?:[a-z0-9-]+\.)*[a-z0-9-]*[a-z][a-z0-9-]*:\d{2,5}\b/gi;
// Bare host names: two or more dot-separated labels ending in a letter (payments.corp.internal).
const HOST_NAME_PATTERN = /\b(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z][a-z0-9-]*[a-z0-9]\b/gi;
const DROPPED_KEYS = new Set(["baseUrl", "ciUrl", "url", "targetUrl", "workerIds", "serverConfig", "configApplyUrl"]);

export function redactText(text: string): string {
  return text
    .replace(URL_PATTERN, HIDDEN)
    .replace(IPV6_PATTERN, HIDDEN)
    .replace(IPV4_PATTERN, HIDDEN)
    .replace(HOST_PORT_PATTERN, HIDDEN)
    .replace(HOST_NAME_PATTERN, HIDDEN);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A scenario spec reduced to its numeric and yes/no load settings. */
function loadSettings(spec: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(spec).filter(([, v]) => typeof v === "number" || typeof v === "boolean" || v === null),
  );
}

/** An error breakdown entry: what kind, which status, how many; never what it said. */
function errorEntry(entry: Record<string, unknown>): Record<string, unknown> {
  return { ...entry, message: "" };
}

/** Knobs keep their names and numeric or yes/no values; text values can name hosts. */
function knobValues(knobs: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(knobs).map(([k, v]) => [k, typeof v === "number" || typeof v === "boolean" ? v : "[hidden]"]),
  );
}

export function redactForShare<T>(value: T): T {
  const visit = (node: unknown, key: string | undefined): unknown => {
    if (key === "error" && typeof node === "string") return DETAILS_HIDDEN;
    if (key === "invalidReasons" && Array.isArray(node)) return node.map(() => DETAILS_HIDDEN);
    if (typeof node === "string") return redactText(node);
    if (key === "errors" && Array.isArray(node)) {
      return node.map((e) => (isPlainObject(e) ? visit(errorEntry(e), undefined) : visit(e, undefined)));
    }
    if (Array.isArray(node)) return node.map((v) => visit(v, undefined));
    if (!isPlainObject(node)) return node;
    if (key === "spec") return loadSettings(node);
    if (key === "knobs") return knobValues(node);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === "headers") continue;
      out[k] = DROPPED_KEYS.has(k) ? null : visit(v, k);
    }
    return out;
  };
  return visit(value, undefined) as T;
}
