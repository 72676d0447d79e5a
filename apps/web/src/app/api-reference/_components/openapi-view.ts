/**
 * The parts of an OpenAPI 3.1 document the API reference page shows, read defensively: the page
 * renders whatever the served document holds, and a field it does not know is left out rather
 * than breaking the page.
 */
export type Json = Record<string, unknown>;

export const HTTP_METHODS = ["get", "post", "put", "patch", "delete"] as const;

export interface Parameter {
  name: string;
  in: string;
  required: boolean;
  description: string | null;
  schema: Json | null;
}

export interface Operation {
  /** Anchor on the page: the operationId, else method and path. */
  id: string;
  method: (typeof HTTP_METHODS)[number];
  path: string;
  summary: string | null;
  description: string | null;
  parameters: Parameter[];
  body: { required: boolean; contentTypes: { type: string; schema: Json | null }[] } | null;
  responses: { status: string; description: string | null; schema: Json | null }[];
}

const obj = (v: unknown): Json | null => (v && typeof v === "object" && !Array.isArray(v) ? (v as Json) : null);
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);

/** Operations grouped by their first tag, in the document's tag order (untagged ones last). */
export function operationsByTag(doc: Json): { tag: string; operations: Operation[] }[] {
  const groups = new Map<string, Operation[]>();
  for (const t of Array.isArray(doc.tags) ? doc.tags : []) {
    const name = str(obj(t)?.name);
    if (name) groups.set(name, []);
  }
  for (const [path, item] of Object.entries(obj(doc.paths) ?? {})) {
    const shared = Array.isArray(obj(item)?.parameters) ? (obj(item)!.parameters as unknown[]) : [];
    for (const method of HTTP_METHODS) {
      const op = obj(obj(item)?.[method]);
      if (!op) continue;
      const tag = str((op.tags as unknown[] | undefined)?.[0]) ?? "other";
      if (!groups.has(tag)) groups.set(tag, []);
      groups.get(tag)!.push(readOperation(method, path, op, shared));
    }
  }
  return [...groups].filter(([, ops]) => ops.length > 0).map(([tag, operations]) => ({ tag, operations }));
}

function readOperation(method: Operation["method"], path: string, op: Json, shared: unknown[]): Operation {
  const parameters = [...shared, ...(Array.isArray(op.parameters) ? op.parameters : [])].flatMap((p) => {
    const param = obj(p);
    const name = str(param?.name);
    if (!param || !name) return [];
    return [
      {
        name,
        in: str(param.in) ?? "query",
        required: param.required === true,
        description: str(param.description),
        schema: obj(param.schema),
      },
    ];
  });
  const body = obj(op.requestBody);
  return {
    id: str(op.operationId) ?? `${method}-${path}`.replace(/[^A-Za-z0-9_-]+/g, "-"),
    method,
    path,
    summary: str(op.summary),
    description: str(op.description),
    parameters,
    body: body
      ? {
          required: body.required === true,
          contentTypes: Object.entries(obj(body.content) ?? {}).map(([type, media]) => ({
            type,
            schema: obj(obj(media)?.schema),
          })),
        }
      : null,
    responses: Object.entries(obj(op.responses) ?? {}).map(([status, r]) => {
      const content = Object.values(obj(obj(r)?.content) ?? {})[0];
      return { status, description: str(obj(r)?.description), schema: obj(obj(content)?.schema) };
    }),
  };
}

/** `#/components/schemas/LaunchInput` → `LaunchInput`. */
export function refName(schema: Json | null): string | null {
  const ref = str(schema?.$ref);
  return ref?.startsWith("#/components/schemas/") ? ref.slice("#/components/schemas/".length) : null;
}

/** A schema's type in one short line: `string`, `integer[]`, `"a" | "b"`, `LaunchInput`, `object`. */
export function typeLabel(schema: Json | null): string {
  if (!schema) return "any";
  const ref = refName(schema);
  if (ref) return ref;
  if ("const" in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(" | ");
  for (const key of ["anyOf", "oneOf"] as const) {
    const options = schema[key];
    if (Array.isArray(options)) return [...new Set(options.map((o) => typeLabel(obj(o))))].join(" | ");
  }
  const type = schema.type;
  if (Array.isArray(type)) return type.join(" | ");
  if (type === "array") return `${typeLabel(obj(schema.items))}[]`;
  if (type === "object" && !obj(schema.properties) && obj(schema.additionalProperties)) {
    return `map of ${typeLabel(obj(schema.additionalProperties))}`;
  }
  return str(type) ?? "any";
}

/** Bounds and formats worth knowing when writing a request: `1–200 chars`, `≤ 3600`, `date-time`. */
export function constraints(schema: Json | null): string[] {
  if (!schema) return [];
  const out: string[] = [];
  const n = (k: string) => (typeof schema[k] === "number" ? (schema[k] as number) : null);
  const range = (lo: number | null, hi: number | null, unit: string) => {
    if (lo !== null && hi !== null) out.push(`${lo}–${hi}${unit}`);
    else if (lo !== null) out.push(`≥ ${lo}${unit}`);
    else if (hi !== null) out.push(`≤ ${hi}${unit}`);
  };
  range(n("minLength"), n("maxLength"), " chars");
  range(n("minItems"), n("maxItems"), " items");
  range(n("minimum"), n("maximum"), "");
  if (n("exclusiveMinimum") !== null) out.push(`> ${n("exclusiveMinimum")}`);
  if (str(schema.format)) out.push(str(schema.format)!);
  if ("default" in schema) out.push(`default ${JSON.stringify(schema.default)}`);
  return out;
}

/** An object schema's properties, required ones first, each with its own schema. */
export function properties(schema: Json | null): { name: string; required: boolean; schema: Json | null }[] {
  const props = obj(schema?.properties);
  if (!props) return [];
  const required = new Set(Array.isArray(schema?.required) ? (schema.required as string[]) : []);
  return Object.entries(props)
    .map(([name, s]) => ({ name, required: required.has(name), schema: obj(s) }))
    .sort((a, b) => Number(b.required) - Number(a.required));
}

/** Text from the document, split so that `code` spans can be set as code. */
export function inlineCode(text: string): { code: boolean; text: string }[] {
  return text
    .split(/(`[^`]+`)/)
    .filter(Boolean)
    .map((part) =>
      part.startsWith("`") && part.endsWith("`")
        ? { code: true, text: part.slice(1, -1) }
        : { code: false, text: part },
    );
}
