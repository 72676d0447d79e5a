import { describe, expect, it } from "vitest";
import { compileTemplate, renderTemplate, TemplateError, type TemplateScope, templateRoots } from "./template";

const scope = (over: Partial<TemplateScope> = {}): TemplateScope => ({
  iteration: 3,
  base: "http://127.0.0.1:8080",
  variables: { user: "ada" },
  assigned: new Map([["login", { status: 200, body: { token: "t0k", nested: { id: 7 } }, headers: { "x-id": "9" } }]]),
  ...over,
});

describe("templates", () => {
  it("leaves text without placeholders as a constant", () => {
    const t = compileTemplate("/plain/path");
    expect(t.constant).toBe("/plain/path");
  });

  it("fills item, index, iteration, base, variables and assigned responses", () => {
    const t = compileTemplate(
      "{{ base }}/u/{{user}}/{{ item }}/{{ index }}/{{iteration}}?t={{ login.body.token }}&n={{ login.body.nested.id }}&s={{ login.status }}&h={{ login.headers.x-id }}",
    );
    expect(templateRoots(t)).toEqual([
      "base",
      "user",
      "item",
      "index",
      "iteration",
      "login",
      "login",
      "login",
      "login",
    ]);
    expect(renderTemplate(t, scope({ item: "x", index: 1 }))).toBe(
      "http://127.0.0.1:8080/u/ada/x/1/3?t=t0k&n=7&s=200&h=9",
    );
  });

  it("throws naming the variable that has no value", () => {
    const t = compileTemplate("/{{ login.body.missing }}");
    expect(() => renderTemplate(t, scope())).toThrow(TemplateError);
    expect(() => renderTemplate(t, scope())).toThrow("login.body.missing");
  });

  it("renders objects as JSON", () => {
    const t = compileTemplate("{{ login.body.nested }}");
    expect(renderTemplate(t, scope())).toBe('{"id":7}');
  });
});
