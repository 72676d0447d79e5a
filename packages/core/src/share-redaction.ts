/**
 * What a share link shows when the sharer did not tick "include target details": the figures the
 * signed-in page shows, with addresses and text that could name a host hidden, and saying so.
 * Free text that a target, a worker or a run's environment wrote can carry names anywhere, so
 * what is shown is decided by what each field is, not by spotting addresses in it:
 * - the product's own identifiers stay as they are: metric and stage keys and their labels and
 *   units, config field paths, instance types. They name what was measured, and a page that
 *   scrubbed them ("stage.db" reads like a host name) could no longer say which figure is which;
 * - the target's address reads "[address hidden]"; CI URLs, headers and worker ids are dropped;
 * - a scenario keeps only its name, engine and numeric load settings (rate, connections, …);
 * - knobs and what the target's config hook reported keep every field name and their numeric or
 *   yes/no values; text values read "[hidden]";
 * - errors keep their kind, status and count, never their message; a run's error, its invalid
 *   reasons and a config hook's failure are replaced by a fixed text;
 * - any other text keeps its words with URLs, addresses, host:port and host names replaced.
 * Dates and other non-plain objects pass through unchanged.
 */
const HIDDEN = "[address hidden]";
const VALUE_HIDDEN = "[hidden]";
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
const DROPPED_KEYS = new Set(["ciUrl", "url", "workerIds"]);
/** Addresses shown as hidden rather than left out, so a page never reads as if there were none. */
const ADDRESS_KEYS = new Set(["baseUrl", "targetUrl", "configApplyUrl"]);
/** Strings (or lists of them) that the product made: names of what was measured, never free text. */
const IDENTIFIER_KEYS = new Set([
  "key",
  "metric",
  "metrics",
  "unit",
  "direction",
  "stageKeys",
  "overheadStages",
  "derivedKeys",
  "path",
  "instanceType",
  "engine",
]);

/**
 * `keep`: identifiers found elsewhere in what is shared (instance types such as "t3.xlarge", which
 * read like host names), left as they are where a text repeats them, as in a run's title.
 */
export function redactText(text: string, keep: readonly string[] = []): string {
  const kept = keep.find((k) => k !== "" && text.includes(k));
  if (kept !== undefined) {
    return text
      .split(kept)
      .map((piece) => redactText(piece, keep))
      .join(kept);
  }
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
    Object.entries(knobs).map(([k, v]) => [k, typeof v === "number" || typeof v === "boolean" ? v : VALUE_HIDDEN]),
  );
}

/** What the config hook reported, as knobs; a failure to read it keeps its place, not its words. */
function serverConfigValues(reported: Record<string, unknown>): Record<string, unknown> {
  const { unreadable, ...fields } = reported;
  return {
    ...knobValues(fields),
    ...(typeof unreadable === "string" ? { unreadable: DETAILS_HIDDEN } : {}),
  };
}

/**
 * A config difference row's value as the snapshots it came from are shared: knobs and scenario
 * settings keep numbers and yes/no only, instance types stay, other text is scrubbed.
 */
function diffValue(path: string, value: unknown): unknown {
  if (typeof value !== "string") return value;
  if (path.endsWith(".instanceType")) return value;
  if (/^(?:config\.knobs|scenario\.spec)\./.test(path)) {
    return /^(?:-?\d+(?:\.\d+)?(?:e[+-]?\d+)?|true|false)$/i.test(value) ? value : VALUE_HIDDEN;
  }
  if (/^target\.(?:baseUrl|url)$/.test(path)) return HIDDEN;
  return redactText(value);
}

/** A metric row (a key with its unit): its label is made from the key, like the key it stays. */
function isMetricRow(node: Record<string, unknown>): boolean {
  return typeof node.key === "string" && typeof node.unit === "string" && typeof node.label === "string";
}

/** Every instance type named in a value, however deep. */
function instanceTypes(node: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const v of node) instanceTypes(v, out);
  else if (isPlainObject(node)) {
    for (const [k, v] of Object.entries(node)) {
      if (k === "instanceType" && typeof v === "string" && v.trim() !== "") out.add(v.trim());
      else instanceTypes(v, out);
    }
  }
  return out;
}

export function redactForShare<T>(value: T): T {
  // Longest first, so "t3.xlarge" is kept whole where "t3.x" is an instance type too.
  const keep = [...instanceTypes(value)].sort((a, b) => b.length - a.length);
  const visit = (node: unknown, key: string | undefined): unknown => {
    if (key === "error" && typeof node === "string") return DETAILS_HIDDEN;
    // Reasons may name shards' hosts or the target's queues; the reading and its rates stay.
    if ((key === "invalidReasons" || key === "saturationReasons") && Array.isArray(node)) {
      return node.map(() => DETAILS_HIDDEN);
    }
    if (key !== undefined && IDENTIFIER_KEYS.has(key)) {
      if (typeof node === "string") return node;
      if (Array.isArray(node) && node.every((v) => typeof v === "string")) return node;
    }
    if (typeof node === "string") return redactText(node, keep);
    if (key === "errors" && Array.isArray(node)) {
      return node.map((e) => (isPlainObject(e) ? visit(errorEntry(e), undefined) : visit(e, undefined)));
    }
    if (Array.isArray(node)) return node.map((v) => visit(v, undefined));
    if (!isPlainObject(node)) return node;
    if (key === "spec") return loadSettings(node);
    if (key === "knobs") return knobValues(node);
    if (key === "serverConfig") return serverConfigValues(node);
    if (typeof node.path === "string" && Array.isArray(node.values)) {
      const path = node.path;
      return { ...node, values: node.values.map((v) => diffValue(path, v)) };
    }
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === "headers") continue;
      if (DROPPED_KEYS.has(k)) out[k] = null;
      else if (ADDRESS_KEYS.has(k)) out[k] = typeof v === "string" && v !== "" ? HIDDEN : null;
      else if (k === "label" && isMetricRow(node)) out[k] = v;
      else out[k] = visit(v, k);
    }
    return out;
  };
  return visit(value, undefined) as T;
}
