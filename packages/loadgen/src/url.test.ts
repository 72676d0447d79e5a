import { describe, expect, it } from "vitest";
import { resolveTargetUrl } from "./url";

describe("resolveTargetUrl", () => {
  it("keeps the base URL's path as a prefix of the scenario path", () => {
    const at = (base: string, path: string) => resolveTargetUrl(base, path).href;
    expect(at("http://127.0.0.1:4100", "/v1/chat/completions")).toBe("http://127.0.0.1:4100/v1/chat/completions");
    expect(at("http://127.0.0.1:4100/", "/health")).toBe("http://127.0.0.1:4100/health");
    expect(at("http://gw.test/api", "/v1/chat/completions")).toBe("http://gw.test/api/v1/chat/completions");
    expect(at("http://gw.test/api/", "v1/models")).toBe("http://gw.test/api/v1/models");
    expect(at("http://gw.test/api", "/search?q=a b&n=1")).toBe("http://gw.test/api/search?q=a%20b&n=1");
    expect(at("http://gw.test/api", "/")).toBe("http://gw.test/api/");
    expect(at("https://gw.test/api", "https://gw.test/other")).toBe("https://gw.test/other");
  });

  it("refuses other protocols and paths that leave the target's origin, naming the field", () => {
    expect(() => resolveTargetUrl("ftp://gw.test", "/")).toThrow("unsupported protocol ftp:");
    expect(() => resolveTargetUrl("not a url", "/")).toThrow("not a valid URL");
    for (const path of ["http://elsewhere.test/x", "//elsewhere.test/x"]) {
      try {
        resolveTargetUrl("http://gw.test/api", path);
        expect.unreachable(`${path} was accepted`);
      } catch (err) {
        expect((err as { field?: string }).field).toBe("path");
      }
    }
  });
});
