import { describe, expect, it } from "vitest";
import { redactForShare, redactText } from "./share-redaction";

describe("redactForShare", () => {
  it("drops target URLs, CI URLs and headers, and keeps only load numbers of a spec", () => {
    const at = new Date("2026-01-01T00:00:00Z");
    const shared = redactForShare({
      target: { name: "checkout", kind: "http", baseUrl: "http://10.1.2.3:8080" },
      run: { ciUrl: "https://ci.internal/job/1", startedAt: at, notes: "fine" },
      scenario: {
        name: "steady",
        engine: "http-open",
        spec: { rate: 500, durationS: 60, path: "/internal/admin", headers: { authorization: "x" } },
        headers: { "x-api-key": "secret" },
      },
      errors: [{ kind: "connect", message: "dial tcp 10.1.2.3:8080: connection refused", count: 3 }],
    });
    expect(shared.target).toEqual({ name: "checkout", kind: "http", baseUrl: null });
    expect(shared.run).toEqual({ ciUrl: null, startedAt: at, notes: "fine" });
    expect(shared.scenario).toEqual({ name: "steady", engine: "http-open", spec: { rate: 500, durationS: 60 } });
    expect(shared.errors[0]?.message).toBe("dial tcp [address hidden]: connection refused");
  });

  it("hides URLs and host:port pairs in text", () => {
    expect(redactText("Get http://payments.internal:9000/v1: timeout")).toBe("Get [address hidden] timeout");
    expect(redactText("connect to db-primary.corp:5432 failed")).toBe("connect to [address hidden] failed");
    expect(redactText("p99 12.5 ms at 500 req/s")).toBe("p99 12.5 ms at 500 req/s");
  });
});
