import { describe, expect, it } from "vitest";
import { publicConfigSnapshot, publicScenarioSnapshot, publicTargetSnapshot, REDACTED } from "./snapshots";

describe("public snapshots", () => {
  it("drops bookkeeping from instance configs and keeps what the run ran with", () => {
    expect(
      publicConfigSnapshot({
        id: "c1",
        orgId: "o",
        projectId: "p",
        name: "t3.small",
        vcpu: 2,
        knobs: { PUBLISH_WORKERS: 20 },
      }),
    ).toEqual({ name: "t3.small", vcpu: 2, knobs: { PUBLISH_WORKERS: 20 } });
    expect(publicConfigSnapshot(null)).toBeNull();
  });

  it("hides header values in scenario specs, plans and header lists", () => {
    const shown = publicScenarioSnapshot({
      id: "s1",
      name: "login",
      spec: {
        engine: "http-closed",
        request: { path: "/", headers: { authorization: "Bearer secret-1" } },
        plan: [{ name: "a", request: { headers: { "x-api-key": "secret-2" } } }],
        headers: [{ name: "cookie", value: "secret-3" }],
        concurrency: 8,
      },
    });
    const text = JSON.stringify(shown);
    expect(text).not.toMatch(/secret-/);
    expect(shown).toMatchObject({
      name: "login",
      spec: {
        request: { headers: { authorization: REDACTED } },
        headers: [{ name: "cookie", value: REDACTED }],
        concurrency: 8,
      },
    });
    expect(shown).not.toHaveProperty("id");
  });

  it("shows headers that only describe the message, such as content-type", () => {
    const shown = publicScenarioSnapshot({
      spec: {
        request: { headers: { "Content-Type": "application/json", authorization: "Bearer secret-1" } },
        headers: [
          { name: "accept", value: "text/plain" },
          { name: "x-api-key", value: "secret-2" },
        ],
      },
    });
    expect(shown).toEqual({
      spec: {
        request: { headers: { "Content-Type": "application/json", authorization: REDACTED } },
        headers: [
          { name: "accept", value: "text/plain" },
          { name: "x-api-key", value: REDACTED },
        ],
      },
    });
  });

  it("shows a target by name, kind and URL only", () => {
    expect(
      publicTargetSnapshot({
        id: "t",
        name: "gateway",
        kind: "llm",
        baseUrl: "http://127.0.0.1:4100",
        headers: [{ name: "a", value: "b" }],
      }),
    ).toEqual({ name: "gateway", kind: "llm", baseUrl: "http://127.0.0.1:4100" });
  });
});
