import { type TPlanStep, type TScenarioSpec, ZScenarioSpec } from "@benchboard/core";
import { isMap, isScalar, isSeq, LineCounter, parseDocument, visit, type YAMLMap } from "yaml";
import { compilePlan } from "../engines/http-closed";
import { EngineConfigError } from "../types";

type HttpClosedSpec = Extract<TScenarioSpec, { engine: "http-closed" }>;

/** A bad drill plan: `field` is the YAML path, `line` the 1-based line where it is. */
export class DrillImportError extends Error {
  constructor(
    readonly field: string,
    readonly line: number | null,
    readonly reason: string,
  ) {
    super(`${field}${line !== null ? ` (line ${line})` : ""}: ${reason}`);
    this.name = "DrillImportError";
  }
}

export interface DrillImport {
  spec: HttpClosedSpec;
  /** The plan's `base`; the run's target takes its place, so it is only informative. */
  base: string | null;
  /** Things that were accepted but do not carry over exactly. */
  warnings: string[];
}

const MAX_RANGE_ITEMS = 100_000;
const DRILL_TIMEOUT_MS = 10_000;

/** Import a drill benchmark YAML (iterations × plan) as an http-closed scenario spec. */
export function importDrillPlan(yamlText: string): HttpClosedSpec {
  return importDrillPlanDetailed(yamlText).spec;
}

/**
 * Import a drill plan with what was lost on the way. Supported: `base`, `iterations`,
 * `concurrency`, `rampup`, and plan items with `request` (url, method, headers, string or
 * `{hex}` body), `assign` (on a request, or standalone `{key, value}`), `assert`, `delay`,
 * `with_items`, `with_items_range`, `shuffle`, `pick`. Refused with an error naming the line:
 * `exec`, `include`, `with_items_from_csv` and file bodies (a worker must not run commands or read
 * files from a plan), URLs off the base's origin, and unknown variables.
 */
export function importDrillPlanDetailed(yamlText: string): DrillImport {
  const lines = new LineCounter();
  const doc = parseDocument(yamlText, { lineCounter: lines, uniqueKeys: true });
  const rangeLine = (node: unknown): number | null => {
    const range = (node as { range?: [number, number, number] } | null)?.range;
    return range ? lines.linePos(range[0]).line : null;
  };
  // A value is reported at the line of its key (`request:`), where a reader looks for it.
  const keyLines = new WeakMap<object, number>();
  visit(doc, {
    Pair(_, pair) {
      const line = rangeLine(pair.key);
      if (pair.value && typeof pair.value === "object" && line !== null) keyLines.set(pair.value, line);
    },
  });
  const lineOf = (node: unknown): number | null =>
    (node && typeof node === "object" ? keyLines.get(node) : undefined) ?? rangeLine(node);
  const firstError = doc.errors[0];
  if (firstError) {
    const line = firstError.linePos?.[0]?.line ?? null;
    throw new DrillImportError("yaml", line, firstError.message.split("\n")[0] ?? "invalid YAML");
  }
  const root = doc.contents;
  if (!isMap(root)) throw new DrillImportError("(document)", lineOf(root), "expected a mapping with `plan`");
  const fail: Fail = (field, node, reason) => {
    throw new DrillImportError(field, lineOf(node) ?? lineOf(root), reason);
  };
  const warnings: string[] = [];
  const known = new Set(["base", "iterations", "concurrency", "rampup", "plan"]);
  for (const pair of root.items) {
    const key = String(isScalar(pair.key) ? pair.key.value : pair.key);
    if (!known.has(key)) warnings.push(`top-level \`${key}\` (line ${lineOf(pair.key)}) is not used`);
  }

  const baseNode = root.get("base", true);
  const base = baseNode === undefined ? null : scalarString(baseNode, "base", fail);
  let baseUrl: URL | null = null;
  if (base !== null) {
    try {
      baseUrl = new URL(base);
    } catch {
      fail("base", baseNode, `not a URL: ${JSON.stringify(base)}`);
    }
  }
  const iterations = positiveInt(root.get("iterations", true), "iterations", 1, fail);
  const concurrency = positiveInt(root.get("concurrency", true), "concurrency", iterations, fail);
  if (concurrency > iterations) {
    fail("concurrency", root.get("concurrency", true), `${concurrency} is more than iterations (${iterations})`);
  }
  const rampNode = root.get("rampup", true);
  const rampup = rampNode === undefined ? 0 : nonNegativeNumber(rampNode, "rampup", fail);
  if (rampup > 0) {
    warnings.push("rampup spreads user starts evenly; drill's integer-division ramp-up steps are not reproduced");
  }

  const planNode = root.get("plan", true);
  if (planNode === undefined) fail("plan", root, "is required");
  if (!isSeq(planNode) || planNode.items.length === 0) fail("plan", planNode, "must be a non-empty list");
  const planItems = (planNode as { items: unknown[] }).items;

  const basePath = baseUrl && baseUrl.pathname !== "/" ? baseUrl.pathname.replace(/\/+$/, "") : "";
  if (basePath) warnings.push(`the base path ${basePath} is prepended to request paths`);

  const steps: TPlanStep[] = [];
  const stepLines: (number | null)[] = [];
  let pendingSet: Record<string, string> = {};
  let pendingDelayMs = 0;

  planItems.forEach((itemNode, index) => {
    const field = `plan[${index}]`;
    if (!isMap(itemNode)) fail(field, itemNode, "each plan item must be a mapping with a name");
    const item = itemNode as YAMLMap;
    const keys = item.items.map((p) => String(isScalar(p.key) ? p.key.value : p.key));
    const nameNode = item.get("name", true);
    if (nameNode === undefined) fail(`${field}.name`, item, "is required");
    const name = scalarString(nameNode, `${field}.name`, fail);
    for (const refused of ["exec", "include", "with_items_from_csv"]) {
      if (keys.includes(refused)) {
        fail(
          `${field}.${refused}`,
          item.get(refused, true),
          `\`${refused}\` is not supported (plans cannot run commands or read files)`,
        );
      }
    }
    for (const key of keys) {
      if (!STEP_KEYS.has(key)) warnings.push(`${field}.${key} (line ${lineOf(item.get(key, true))}) is not used`);
    }
    const requestNode = item.get("request", true);
    const assignNode = item.get("assign", true);

    if (requestNode === undefined) {
      // Standalone actions fold into their neighbours: assigns and delays into the next request,
      // asserts into the previous one (they check what it returned).
      if (assignNode !== undefined) {
        if (!isMap(assignNode)) fail(`${field}.assign`, assignNode, "a standalone assign needs `key` and `value`");
        const a = assignNode as YAMLMap;
        const key = scalarString(a.get("key", true), `${field}.assign.key`, fail);
        pendingSet[key] = scalarString(a.get("value", true), `${field}.assign.value`, fail);
      } else if (keys.includes("delay")) {
        const delayNode = item.get("delay", true);
        const seconds = isMap(delayNode)
          ? nonNegativeNumber((delayNode as YAMLMap).get("seconds", true), `${field}.delay.seconds`, fail)
          : fail(`${field}.delay`, delayNode, "expected `seconds`");
        pendingDelayMs += Math.round(seconds * 1000);
        if (pendingDelayMs > 60_000)
          fail(`${field}.delay.seconds`, delayNode, "delays between two requests add up to more than 60 s");
      } else if (keys.includes("assert")) {
        const assertNode = item.get("assert", true);
        if (!isMap(assertNode)) fail(`${field}.assert`, assertNode, "expected `key` and `value`");
        const a = assertNode as YAMLMap;
        const key = scalarString(a.get("key", true), `${field}.assert.key`, fail);
        const valueNode = a.get("value", true);
        if (!isScalar(valueNode)) fail(`${field}.assert.value`, valueNode ?? assertNode, "is required");
        const value = (valueNode as { value: unknown }).value;
        const previous = steps[steps.length - 1];
        if (!previous) fail(`${field}.assert`, assertNode, "an assert must follow a request");
        if (Object.keys(pendingSet).length > 0) {
          fail(`${field}.assert`, assertNode, "an assert after a standalone assign is not supported");
        }
        previous!.asserts = [
          ...(previous!.asserts ?? []),
          { key, value: typeof value === "boolean" || typeof value === "number" ? value : String(value) },
        ];
      } else {
        fail(field, item, `has no action (expected one of request, assign, assert, delay)`);
      }
      return;
    }

    if (!isMap(requestNode)) fail(`${field}.request`, requestNode, "expected a mapping with `url`");
    const req = requestNode as YAMLMap;
    const urlNode = req.get("url", true);
    if (urlNode === undefined) fail(`${field}.request.url`, req, "is required");
    const path = toTargetPath(scalarString(urlNode, `${field}.request.url`, fail), baseUrl, basePath, (reason) =>
      fail(`${field}.request.url`, urlNode, reason),
    );
    const methodNode = req.get("method", true);
    const method =
      methodNode === undefined ? "GET" : scalarString(methodNode, `${field}.request.method`, fail).toUpperCase();
    if (!METHODS.has(method)) fail(`${field}.request.method`, methodNode, `unsupported method ${method}`);
    const headers: Record<string, string> = {};
    const headersNode = req.get("headers", true);
    if (headersNode !== undefined) {
      if (!isMap(headersNode)) fail(`${field}.request.headers`, headersNode, "expected a mapping");
      for (const pair of (headersNode as YAMLMap).items) {
        const hName = String(isScalar(pair.key) ? pair.key.value : pair.key);
        headers[hName] = scalarString(pair.value, `${field}.request.headers.${hName}`, fail);
      }
    }
    const body = readBody(req.get("body", true), `${field}.request.body`, fail);

    const step: TPlanStep = { name, request: { method: method as TPlanStep["request"]["method"], path, headers } };
    if (body !== undefined) step.request.body = body;
    if (assignNode !== undefined) step.assign = scalarString(assignNode, `${field}.assign`, fail);
    if (Object.keys(pendingSet).length > 0) step.set = pendingSet;
    if (pendingDelayMs > 0) step.delayMs = pendingDelayMs;
    pendingSet = {};
    pendingDelayMs = 0;

    const withItems = item.get("with_items", true);
    const range = item.get("with_items_range", true);
    if (withItems !== undefined && range !== undefined) {
      fail(`${field}.with_items_range`, range, "use either with_items or with_items_range");
    }
    if (withItems !== undefined) {
      if (!isSeq(withItems)) fail(`${field}.with_items`, withItems, "expected a list");
      step.withItems = (withItems as { items: unknown[] }).items.map((n, i) => {
        if (!isScalar(n) || (typeof n.value !== "string" && typeof n.value !== "number")) {
          return fail(`${field}.with_items[${i}]`, n, "items must be strings or numbers");
        }
        return n.value as string | number;
      });
    }
    if (range !== undefined) step.withItems = expandRange(range, `${field}.with_items_range`, fail);
    const shuffle = item.get("shuffle", true);
    if (shuffle !== undefined) {
      if (!isScalar(shuffle) || typeof shuffle.value !== "boolean")
        fail(`${field}.shuffle`, shuffle, "expected true or false");
      step.shuffle = (shuffle as { value: boolean }).value;
    }
    const pick = item.get("pick", true);
    if (pick !== undefined) step.pick = positiveInt(pick, `${field}.pick`, 1, fail);
    if ((step.shuffle || step.pick !== undefined) && !step.withItems) {
      fail(`${field}.${step.shuffle ? "shuffle" : "pick"}`, shuffle ?? pick, "needs with_items or with_items_range");
    }
    steps.push(step);
    stepLines.push(lineOf(item));
  });

  if (steps.length === 0) fail("plan", planNode, "has no request");
  if (pendingDelayMs > 0) steps[steps.length - 1]!.delayAfterMs = pendingDelayMs;
  if (Object.keys(pendingSet).length > 0) warnings.push("assigns after the last request are not used");

  try {
    compilePlan(steps, {});
  } catch (err) {
    if (err instanceof EngineConfigError) {
      const m = /^plan\.(\d+)\.(.*)$/.exec(err.field);
      const stepIndex = m ? Number(m[1]) : -1;
      const msg = err.message.slice(err.field.length + 2);
      throw new DrillImportError(
        m ? `plan step "${steps[stepIndex]?.name}" ${m[2]}` : err.field,
        stepLines[stepIndex] ?? null,
        msg,
      );
    }
    throw err;
  }

  const parsed = ZScenarioSpec.safeParse({
    engine: "http-closed",
    concurrency,
    requests: iterations,
    rampUpS: rampup,
    timeoutMs: DRILL_TIMEOUT_MS,
    plan: steps,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new DrillImportError(issue?.path.join(".") ?? "(plan)", null, issue?.message ?? "invalid plan");
  }
  return { spec: parsed.data as HttpClosedSpec, base, warnings };
}

const STEP_KEYS = new Set([
  "name",
  "request",
  "assign",
  "assert",
  "delay",
  "with_items",
  "with_items_range",
  "shuffle",
  "pick",
  "tags",
]);
const METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]);

type Fail = (field: string, node: unknown, reason: string) => never;

function scalarString(node: unknown, field: string, fail: Fail): string {
  if (!isScalar(node) || node.value === null || typeof node.value === "object") {
    return fail(field, node, "expected a string");
  }
  return String(node.value);
}

function positiveInt(node: unknown, field: string, fallback: number, fail: Fail): number {
  if (node === undefined) return fallback;
  const v = isScalar(node) ? Number(node.value) : Number.NaN;
  if (!Number.isInteger(v) || v < 1) return fail(field, node, "expected a positive integer");
  return v;
}

function nonNegativeNumber(node: unknown, field: string, fail: Fail): number {
  const v = isScalar(node) ? Number(node.value) : Number.NaN;
  if (!Number.isFinite(v) || v < 0) return fail(field, node, "expected a number ≥ 0");
  return v;
}

function readBody(node: unknown, field: string, fail: Fail): string | undefined {
  if (node === undefined) return undefined;
  if (isScalar(node)) return String(node.value);
  if (isMap(node)) {
    const m = node as YAMLMap;
    if (m.has("file")) return fail(`${field}.file`, m.get("file", true), "file bodies are not supported");
    const hex = m.get("hex", true);
    if (hex !== undefined) {
      const text = scalarString(hex, `${field}.hex`, fail).replace(/\s+/g, "");
      if (!/^([0-9a-fA-F]{2})*$/.test(text)) fail(`${field}.hex`, hex, "not an even-length hex string");
      const bytes = Buffer.from(text, "hex");
      const utf8 = bytes.toString("utf8");
      if (!Buffer.from(utf8, "utf8").equals(bytes)) fail(`${field}.hex`, hex, "binary bodies are not supported");
      return utf8;
    }
  }
  return fail(field, node, "expected a string, {hex: …}");
}

function expandRange(node: unknown, field: string, fail: Fail): number[] {
  if (!isMap(node)) return fail(field, node, "expected start, step and stop");
  const m = node as YAMLMap;
  const int = (key: string, fallback: number) => {
    const n = m.get(key, true);
    if (n === undefined) return fallback;
    const v = isScalar(n) ? Number(n.value) : Number.NaN;
    if (!Number.isInteger(v)) fail(`${field}.${key}`, n, "expected an integer");
    return v;
  };
  const start = int("start", 1);
  const step = int("step", 1);
  const stop = int("stop", 1);
  if (step < 1) fail(`${field}.step`, m.get("step", true) ?? node, "must be at least 1");
  if (stop < start) fail(`${field}.stop`, m.get("stop", true) ?? node, `is below start (${start})`);
  const count = Math.floor((stop - start) / step) + 1;
  if (count > MAX_RANGE_ITEMS) fail(field, node, `expands to ${count} items (at most ${MAX_RANGE_ITEMS})`);
  return Array.from({ length: count }, (_, i) => start + i * step);
}

/** Make a drill URL a path on the run's target; drill's base becomes the target. */
function toTargetPath(url: string, base: URL | null, basePath: string, fail: (reason: string) => never): string {
  const withoutBase = url.replace(/^\{\{\s*base\s*\}\}/, "");
  if (withoutBase !== url) return basePath + (withoutBase.startsWith("/") ? withoutBase : `/${withoutBase}`);
  if (url.startsWith("/")) return basePath + url;
  if (/^https?:\/\//i.test(url)) {
    let parsed: URL;
    try {
      parsed = new URL(url.replace(/\{\{[^}]*\}\}/g, "x"));
    } catch {
      return fail(`not a URL: ${JSON.stringify(url)}`);
    }
    if (!base || parsed.origin !== base.origin) {
      return fail(`${parsed.origin} is not the plan's base; load only goes to the run's target`);
    }
    return url.slice(url.indexOf("/", url.indexOf("//") + 2)) || "/";
  }
  return fail(`expected a path starting with / or {{ base }}, got ${JSON.stringify(url)}`);
}
