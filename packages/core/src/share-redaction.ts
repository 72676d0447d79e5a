/**
 * What a share link shows when the sharer did not tick "include target details": no target URL,
 * CI URL, headers or hostnames, and of a scenario only its name, engine and numeric load
 * settings (rate, connections, duration…). Errors and messages keep their text with addresses
 * replaced. Dates and other non-plain objects pass through unchanged.
 */
const HIDDEN = "[address hidden]";
const URL_PATTERN = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi;
const IPV4_PATTERN = /\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?\b/g;
const HOST_PORT_PATTERN = /\b(?:[a-z0-9-]+\.)*[a-z0-9-]+:\d{2,5}\b/gi;
const DROPPED_KEYS = new Set(["baseUrl", "ciUrl", "url", "targetUrl"]);

export function redactText(text: string): string {
  return text.replace(URL_PATTERN, HIDDEN).replace(IPV4_PATTERN, HIDDEN).replace(HOST_PORT_PATTERN, HIDDEN);
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

export function redactForShare<T>(value: T): T {
  const visit = (node: unknown, key: string | undefined): unknown => {
    if (typeof node === "string") return redactText(node);
    if (Array.isArray(node)) return node.map((v) => visit(v, undefined));
    if (!isPlainObject(node)) return node;
    if (key === "spec") return loadSettings(node);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === "headers") continue;
      out[k] = DROPPED_KEYS.has(k) ? null : visit(v, k);
    }
    return out;
  };
  return visit(value, undefined) as T;
}
