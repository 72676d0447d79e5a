import { parseTrustedProxies } from "@benchboard/api/client-address";
import { describe, expect, it } from "vitest";
import { isCrossSiteWrite } from "./csrf";
import { clientIp, isHttps } from "./request-origin";

const direct = { peerHeader: "x-benchboard-peer", trusted: parseTrustedProxies("") };
const behindProxy = { peerHeader: "x-benchboard-peer", trusted: parseTrustedProxies("10.0.0.2") };

function request(headers: Record<string, string>, method = "GET", url = "http://app.example/api/trpc/auth.signIn") {
  return new Request(url, { method, headers });
}

describe("client address", () => {
  it("is the socket's peer: a client cannot pick its rate-limit key with X-Forwarded-For", () => {
    const spoofed = request({ "x-benchboard-peer": "203.0.113.9", "x-forwarded-for": "1.2.3.4" });
    expect(clientIp(spoofed, direct)).toBe("203.0.113.9");
  });

  it("is the forwarded client when the peer is a trusted proxy", () => {
    const proxied = request({ "x-benchboard-peer": "10.0.0.2", "x-forwarded-for": "1.2.3.4, 198.51.100.7" });
    expect(clientIp(proxied, behindProxy)).toBe("198.51.100.7");
  });

  it("does not take https from the request's URL, which the framework builds from X-Forwarded-Proto", () => {
    const publicUrls = [new URL("http://127.0.0.1:3000")];
    const spoofed = request(
      { host: "127.0.0.1:3000", "x-benchboard-peer": "203.0.113.9", "x-forwarded-proto": "https" },
      "GET",
      "https://127.0.0.1:3000/",
    );
    expect(isHttps(spoofed, { ...direct, publicUrls })).toBe(false);
    const served = request({ host: "bench.example" }, "GET", "https://bench.example/");
    expect(isHttps(served, { ...direct, publicUrls: [new URL("https://bench.example")] })).toBe(true);
  });

  it("believes X-Forwarded-Proto only from a trusted proxy", () => {
    const headers = { "x-benchboard-peer": "10.0.0.2", "x-forwarded-proto": "https" };
    expect(isHttps(request(headers), direct)).toBe(false);
    expect(isHttps(request(headers), behindProxy)).toBe(true);
  });
});

describe("isCrossSiteWrite", () => {
  const write = (headers: Record<string, string>) => request({ host: "app.example", ...headers }, "POST");

  it("refuses a foreign origin that also claims the foreign host in X-Forwarded-Host", () => {
    const forged = write({
      origin: "https://evil.example",
      "x-forwarded-host": "evil.example",
      "x-benchboard-peer": "203.0.113.9",
    });
    expect(isCrossSiteWrite(forged, direct)).toBe(true);
  });

  it("accepts the app's own origin, and a proxied host from a trusted proxy", () => {
    expect(isCrossSiteWrite(write({ origin: "http://app.example" }), direct)).toBe(false);
    const proxied = write({
      origin: "https://bench.example.com",
      "x-forwarded-host": "bench.example.com",
      "x-benchboard-peer": "10.0.0.2",
    });
    expect(isCrossSiteWrite(proxied, behindProxy)).toBe(false);
  });
});
