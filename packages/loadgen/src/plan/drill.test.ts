import { describe, expect, it } from "vitest";
import { DrillImportError, importDrillPlan, importDrillPlanDetailed } from "./drill";

const PLAN = `---
base: 'http://localhost:9000'
iterations: 40
concurrency: 4
rampup: 2

plan:
  - name: Login
    request:
      url: /login
      method: POST
      body: '{"user": "ada"}'
      headers:
        Content-Type: 'application/json'
    assign: login

  - name: Check login
    assert:
      key: login.status
      value: 200

  - name: Remember the account
    assign:
      key: account
      value: 'acc-{{ iteration }}'

  - name: Wait a little
    delay:
      seconds: 0.25

  - name: Fetch users
    request:
      url: '{{ base }}/api/users/{{ item }}?i={{ index }}&acc={{ account }}'
      headers:
        Authorization: 'Bearer {{ login.body.token }}'
    with_items:
      - 70
      - 73
      - "x"
    shuffle: true
    pick: 2

  - name: Fetch by range
    request:
      url: http://localhost:9000/range/{{ item }}
    with_items_range:
      start: 2
      step: 3
      stop: 11
`;

function importError(yaml: string): DrillImportError {
  try {
    importDrillPlan(yaml);
  } catch (err) {
    if (err instanceof DrillImportError) return err;
    throw err;
  }
  throw new Error("expected the import to fail");
}

describe("importDrillPlan", () => {
  it("turns iterations × plan into an http-closed spec", () => {
    const { spec, base, warnings } = importDrillPlanDetailed(PLAN);
    expect(base).toBe("http://localhost:9000");
    expect(spec).toMatchObject({ engine: "http-closed", concurrency: 4, requests: 40, rampUpS: 2, timeoutMs: 10_000 });
    expect(spec.plan).toHaveLength(3);
    const [login, users, range] = spec.plan!;
    expect(login).toMatchObject({
      name: "Login",
      assign: "login",
      request: {
        method: "POST",
        path: "/login",
        body: '{"user": "ada"}',
        headers: { "Content-Type": "application/json" },
      },
      asserts: [{ key: "login.status", value: 200 }],
    });
    expect(users).toMatchObject({
      name: "Fetch users",
      set: { account: "acc-{{ iteration }}" },
      delayMs: 250,
      withItems: [70, 73, "x"],
      shuffle: true,
      pick: 2,
      request: {
        method: "GET",
        path: "/api/users/{{ item }}?i={{ index }}&acc={{ account }}",
        headers: { Authorization: "Bearer {{ login.body.token }}" },
      },
    });
    expect(range?.request.path).toBe("/range/{{ item }}");
    expect(range?.withItems).toEqual([2, 5, 8, 11]);
    expect(warnings.join("\n")).toContain("rampup");
  });

  it("defaults concurrency to iterations and prepends a base path", () => {
    const { spec, warnings } = importDrillPlanDetailed(
      "base: http://h:1/api/\niterations: 3\nplan:\n  - name: a\n    request:\n      url: /x\n",
    );
    expect(spec.concurrency).toBe(3);
    expect(spec.plan?.[0]?.request.path).toBe("/api/x");
    expect(warnings.join()).toContain("/api");
  });

  it("names the line of a YAML syntax error", () => {
    const err = importError("plan:\n  - name: a\n    request: {url: /x\n  - name: b\n");
    expect(err.field).toBe("yaml");
    expect(err.line).toBeGreaterThanOrEqual(3);
  });

  it("names the field and line of a missing url", () => {
    const err = importError(
      "iterations: 2\nplan:\n  - name: ok\n    request:\n      url: /a\n  - name: broken\n    request:\n      method: GET\n",
    );
    expect(err.field).toBe("plan[1].request.url");
    expect(err.line).toBe(7);
    expect(err.message).toContain("line 7");
  });

  it("refuses exec, include and CSV items", () => {
    const exec = importError("plan:\n  - name: run\n    exec:\n      command: rm -rf /\n");
    expect(exec.field).toBe("plan[0].exec");
    expect(exec.line).toBe(3);
    expect(importError("plan:\n  - name: inc\n    include: other.yml\n").field).toBe("plan[0].include");
  });

  it("refuses URLs off the base origin", () => {
    const err = importError(
      "base: http://a:1\nplan:\n  - name: x\n    request:\n      url: http://evil.example/steal\n",
    );
    expect(err.field).toBe("plan[0].request.url");
    expect(err.reason).toContain("not the plan's base");
  });

  it("refuses unknown variables, naming the step", () => {
    const err = importError(
      "plan:\n  - name: first\n    request:\n      url: /ok\n  - name: second\n    request:\n      url: /u/{{ HOME }}\n",
    );
    expect(err.field).toBe('plan step "second" request.path');
    expect(err.line).toBe(5);
    expect(err.reason).toContain("HOME");
  });

  it("refuses concurrency above iterations and bad numbers", () => {
    expect(importError("iterations: 2\nconcurrency: 5\nplan:\n  - name: a\n    request: {url: /}\n").field).toBe(
      "concurrency",
    );
    expect(importError("iterations: many\nplan:\n  - name: a\n    request: {url: /}\n").line).toBe(1);
  });

  it("refuses a plan without requests", () => {
    expect(importError("plan:\n  - name: nap\n    delay:\n      seconds: 1\n").field).toBe("plan");
    expect(importError("iterations: 1\n").field).toBe("plan");
  });

  it("decodes hex bodies", () => {
    const spec = importDrillPlan(
      "plan:\n  - name: a\n    request:\n      url: /\n      method: POST\n      body:\n        hex: 7b2261223a317d\n",
    );
    expect(spec.plan?.[0]?.request.body).toBe('{"a":1}');
  });
});
