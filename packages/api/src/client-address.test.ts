import { describe, expect, it } from "vitest";
import { clientAddress, parseTrustedProxies } from "./client-address";

describe("clientAddress", () => {
  const none = parseTrustedProxies("");
  const proxies = parseTrustedProxies("10.0.0.0/8, 192.168.1.7, fd00::/8");

  it("ignores X-Forwarded-For from a peer that is not a trusted proxy", () => {
    expect(clientAddress("203.0.113.9", "1.2.3.4", none)).toBe("203.0.113.9");
    expect(clientAddress("::ffff:203.0.113.9", "1.2.3.4, 5.6.7.8", proxies)).toBe("203.0.113.9");
  });

  it("takes the nearest untrusted hop behind trusted proxies", () => {
    expect(clientAddress("10.1.2.3", "1.2.3.4, 198.51.100.2", proxies)).toBe("198.51.100.2");
    expect(clientAddress("192.168.1.7", "198.51.100.2, 10.9.9.9", proxies)).toBe("198.51.100.2");
    expect(clientAddress("fd00::1", "2001:db8::5", proxies)).toBe("2001:db8::5");
  });

  it("falls back to the peer when a trusted proxy sends nothing usable", () => {
    expect(clientAddress("10.1.2.3", null, proxies)).toBe("10.1.2.3");
    expect(clientAddress("10.1.2.3", "not-an-ip", proxies)).toBe("10.1.2.3");
    expect(clientAddress(null, "1.2.3.4", proxies)).toBeNull();
  });

  it("refuses a malformed proxy list", () => {
    expect(() => parseTrustedProxies("10.0.0.0/33")).toThrow(/invalid prefix/);
    expect(() => parseTrustedProxies("proxy.internal")).toThrow(/not an address/);
  });
});
