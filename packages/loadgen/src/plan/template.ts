/**
 * `{{ name }}` interpolation for plan steps (the drill model). Names are dotted paths:
 * `item`, `item.field`, `index`, `iteration`, `base`, a scenario variable, a `set` variable, or
 * an assigned response: `name.status`, `name.body.a.b`, `name.headers.content-type`.
 */
const PLACEHOLDER = /\{\{\s*([A-Za-z_][\w.-]*)\s*\}\}/g;

export type TemplatePart = string | { path: string[]; raw: string };

export interface CompiledTemplate {
  parts: TemplatePart[];
  /** The text itself when it has no placeholders (the common case: no work per request). */
  constant: string | null;
}

export function compileTemplate(text: string): CompiledTemplate {
  const parts: TemplatePart[] = [];
  let last = 0;
  for (const m of text.matchAll(PLACEHOLDER)) {
    const at = m.index ?? 0;
    if (at > last) parts.push(text.slice(last, at));
    parts.push({ path: m[1]!.split("."), raw: m[1]! });
    last = at + m[0].length;
  }
  if (last < text.length) parts.push(text.slice(last));
  const constant = parts.every((p) => typeof p === "string") ? text : null;
  return { parts, constant };
}

/** Root names a template refers to, for checking a plan before it runs. */
export function templateRoots(t: CompiledTemplate): string[] {
  return t.parts.flatMap((p) => (typeof p === "string" ? [] : [p.path[0]!]));
}

export interface AssignedResponse {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

export interface TemplateScope {
  item?: unknown;
  index?: number;
  iteration: number;
  base: string;
  variables: Record<string, string>;
  assigned: Map<string, AssignedResponse>;
}

export class TemplateError extends Error {
  constructor(readonly variable: string) {
    super(`{{ ${variable} }} has no value`);
    this.name = "TemplateError";
  }
}

export function renderTemplate(t: CompiledTemplate, scope: TemplateScope): string {
  if (t.constant !== null) return t.constant;
  let out = "";
  for (const part of t.parts) {
    if (typeof part === "string") out += part;
    else out += stringify(lookup(part.path, scope), part.raw);
  }
  return out;
}

function lookup(path: string[], scope: TemplateScope): unknown {
  const [root, ...rest] = path;
  let value: unknown;
  switch (root) {
    case "item":
      value = scope.item;
      break;
    case "index":
      value = scope.index;
      break;
    case "iteration":
      value = scope.iteration;
      break;
    case "base":
      value = scope.base;
      break;
    default: {
      const assigned = root === undefined ? undefined : scope.assigned.get(root);
      if (assigned !== undefined) value = assigned;
      else value = root === undefined ? undefined : scope.variables[root];
    }
  }
  for (const key of rest) {
    if (value === null || value === undefined) return undefined;
    if (typeof value !== "object") return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function stringify(value: unknown, raw: string): string {
  if (value === undefined || value === null) throw new TemplateError(raw);
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

/** Read a dotted path (`name.body.id`) as a string for an assert, or undefined. */
export function readPath(path: string, scope: TemplateScope): unknown {
  return lookup(path.split("."), scope);
}
