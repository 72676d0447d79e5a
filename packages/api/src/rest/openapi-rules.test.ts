import Ajv2020 from "ajv/dist/2020";
import { describe, expect, it } from "vitest";
import { ZConfigTarget } from "../config-as-code";
import { parseJsonBody, RestError } from "./http";
import { openApiDocument } from "./openapi";

// The OpenAPI document is a contract: a body it allows, the server takes; a body the server
// refuses as malformed, it forbids. These bodies sit on rules a refinement states in zod, which
// JSON Schema only reaches when the document says them again.
const doc = openApiDocument() as { components: { schemas: Record<string, object> } };
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
for (const [id, schema] of Object.entries(doc.components.schemas)) {
  ajv.addSchema(schema, `#/components/schemas/${id}`);
}
const documentAllows = (component: string, body: unknown) => {
  const validate = ajv.getSchema(`#/components/schemas/${component}`);
  if (!validate) throw new Error(`no component ${component}`);
  return validate(body) as boolean;
};
/** What the server's body parser says: null when it takes the text, else the refused field. */
const parserRefuses = (body: unknown) => {
  try {
    parseJsonBody(JSON.stringify(body));
    return null;
  } catch (err) {
    if (err instanceof RestError) return err.location.field ?? err.message;
    throw err;
  }
};

const target = (extra: Record<string, unknown>) => ({ kind: "http", baseUrl: "http://127.0.0.1:4100", ...extra });

describe("the OpenAPI document states what the server refuses", () => {
  it("a reserved key at any depth of any body", () => {
    // JSON.parse keeps `__proto__` as an own key; an object literal would not.
    const nested = JSON.parse(
      '{"schemaVersion":1,"result":{"stages":{"db":{"ms":1,"x":{"y":[{"__proto__":1}]}}}}}',
    ) as unknown;
    expect(parserRefuses(nested)).toBe("result.stages.db.x.y.0.__proto__");
    expect(documentAllows("ExecFinishInput", nested)).toBe(false);
    const constructorKey = JSON.parse(
      '{"kind":"http","baseUrl":"http://a","monitors":[{"kind":"process","pid":1,"constructor":{}}]}',
    );
    expect(parserRefuses(constructorKey)).toBe("monitors.0.constructor");
    expect(documentAllows("ConfigTargetBody", constructorKey)).toBe(false);
    // The same shapes with ordinary keys are taken by both.
    const ordinary = { kind: "http", baseUrl: "http://a", monitors: [{ kind: "process", pid: 1, note: { a: [1] } }] };
    expect(parserRefuses(ordinary)).toBeNull();
    expect(documentAllows("ConfigTargetBody", ordinary)).toBe(true);
  });

  it.each([
    ["a process monitor with neither pid nor port", target({ monitors: [{ kind: "process" }] }), "monitors.0.pid"],
    [
      "a custom PromQL metric without a series name",
      target({ monitors: [{ kind: "promql", url: "http://p:9090", query: "up", metric: "custom" }] }),
      "monitors.0.name",
    ],
    [
      "a PromQL expression of spaces only",
      target({ monitors: [{ kind: "promql", url: "http://p:9090", query: "   ", metric: "memory" }] }),
      "monitors.0.query",
    ],
    [
      "a monitor address that is not http(s)",
      target({ monitors: [{ kind: "prometheus", url: "ftp://p:9090" }] }),
      "monitors.0.url",
    ],
    ["an overhead stage named twice", target({ overheadStages: ["db", "db"] }), "overheadStages.1"],
  ])("%s", (_, body, field) => {
    const parsed = ZConfigTarget.omit({ name: true }).safeParse(body);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => i.path.join("."))).toContain(field);
    expect(documentAllows("ConfigTargetBody", body)).toBe(false);
  });

  it("takes the valid neighbours of each", () => {
    for (const body of [
      target({ monitors: [{ kind: "process", port: 5432 }] }),
      target({ monitors: [{ kind: "process", pid: 42 }] }),
      target({ monitors: [{ kind: "promql", url: "http://p:9090", query: "up", metric: "custom", name: "up" }] }),
      target({ monitors: [{ kind: "promql", url: "HTTPS://p", query: " up ", metric: "memory" }] }),
      target({ overheadStages: ["db", "queue"] }),
    ]) {
      expect(ZConfigTarget.omit({ name: true }).safeParse(body).success, JSON.stringify(body)).toBe(true);
      expect(documentAllows("ConfigTargetBody", body), JSON.stringify(body)).toBe(true);
    }
  });

  it("knobs: no reserved name and at most 100, in both", () => {
    const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i]));
    expect(documentAllows("ConfigInstanceConfigBody", { knobs: many })).toBe(false);
    const hundred = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, i]));
    expect(documentAllows("ConfigInstanceConfigBody", { knobs: hundred })).toBe(true);
    expect(documentAllows("ConfigInstanceConfigBody", { knobs: { prototype: 1 } })).toBe(false);
  });
});
