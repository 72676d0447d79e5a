import { openApiDocument } from "@benchboard/api/rest/openapi";
import { describe, expect, it } from "vitest";
import { constraints, inlineCode, operationsByTag, properties, typeLabel } from "./openapi-view";

describe("the API reference's reading of the served OpenAPI document", () => {
  const doc = openApiDocument() as Record<string, unknown>;
  const groups = operationsByTag(doc);
  const all = groups.flatMap((g) => g.operations);

  it("lists every operation of the document once, under its tag, in the document's tag order", () => {
    const paths = doc.paths as Record<string, Record<string, unknown>>;
    const expected = Object.entries(paths).flatMap(([path, item]) =>
      ["get", "post", "put", "patch", "delete"].filter((m) => item[m]).map((m) => `${m} ${path}`),
    );
    expect(all.map((o) => `${o.method} ${o.path}`).sort()).toEqual(expected.sort());
    const tagOrder = (doc.tags as { name: string }[]).map((t) => t.name);
    expect(groups.map((g) => g.tag)).toEqual(tagOrder.filter((t) => groups.some((g) => g.tag === t)));
    expect(new Set(all.map((o) => o.id)).size).toBe(all.length);
  });

  it("reads an upload's parameters, body and responses", () => {
    const upload = all.find((o) => o.id === "uploadRun")!;
    expect(upload).toMatchObject({ method: "post", path: "/runs" });
    expect(upload.parameters.find((p) => p.name === "Idempotency-Key")).toMatchObject({
      in: "header",
      required: false,
    });
    expect(upload.body?.contentTypes.map((c) => c.type)).toContain("application/json");
    expect(upload.responses.map((r) => r.status)).toEqual(expect.arrayContaining(["400", "401"]));
  });

  it("labels types, bounds and properties the way a request is written", () => {
    expect(typeLabel({ $ref: "#/components/schemas/LaunchInput" })).toBe("LaunchInput");
    expect(typeLabel({ type: "array", items: { type: "string" } })).toBe("string[]");
    expect(typeLabel({ enum: ["a", "b"] })).toBe('"a" | "b"');
    expect(typeLabel({ anyOf: [{ type: "string" }, { type: "null" }] })).toBe("string | null");
    expect(typeLabel({ type: "object", additionalProperties: { type: "number" } })).toBe("map of number");
    expect(constraints({ type: "string", minLength: 1, maxLength: 200 })).toEqual(["1–200 chars"]);
    expect(constraints({ type: "number", exclusiveMinimum: 0, maximum: 3600 })).toEqual(["≤ 3600", "> 0"]);
    const launch = (doc.components as { schemas: Record<string, Record<string, unknown>> }).schemas.LaunchInput!;
    const props = properties(launch);
    expect(props.slice(0, 2).map((p) => [p.name, p.required])).toEqual([
      ["scenario", true],
      ["target", true],
    ]);
  });

  it("sets backticked words as code", () => {
    expect(inlineCode("Send `Authorization: Bearer <token>` first")).toEqual([
      { code: false, text: "Send " },
      { code: true, text: "Authorization: Bearer <token>" },
      { code: false, text: " first" },
    ]);
  });
});
