import { describe, expect, it } from "vitest";
import { assessTarget, classifyAddress } from "./address";

describe("target address safety", () => {
  it.each([
    ["127.0.0.1"],
    ["10.1.2.3"],
    ["192.168.0.10"],
    ["172.16.5.4"],
    ["8.8.8.8"],
    ["::1"],
    ["2001:db8::1"],
    ["::ffff:127.0.0.1"],
  ])("allows %s", (ip) => {
    expect(classifyAddress(ip)).toEqual({ allowed: true });
  });

  it.each([
    ["169.254.169.254", "cloud metadata"],
    ["169.254.1.1", "link-local"],
    ["169.254.170.2", "cloud metadata"],
    ["100.100.100.200", "cloud metadata"],
    ["fe80::1", "link-local"],
    ["FE80::abcd:1%eth0", "link-local"],
    ["fd00:ec2::254", "cloud metadata"],
    ["::ffff:169.254.169.254", "cloud metadata"],
    ["::ffff:a9fe:a9fe", "cloud metadata"],
    ["0.0.0.0", "not a routable"],
    ["::", "not a routable"],
    ["224.0.0.1", "multicast"],
    ["ff02::1", "multicast"],
    ["not-an-ip", "not an IP"],
  ])("refuses %s (%s)", (ip, why) => {
    const v = classifyAddress(ip);
    expect(v.allowed).toBe(false);
    expect(!v.allowed && v.reason).toContain(why);
  });

  it("refuses metadata hostnames and any host resolving to a refused address", () => {
    expect(assessTarget("metadata.google.internal", ["10.0.0.1"]).allowed).toBe(false);
    expect(assessTarget("Metadata.Google.Internal.", ["10.0.0.1"]).allowed).toBe(false);
    const rebound = assessTarget("innocent.example", ["93.184.216.34", "169.254.169.254"]);
    expect(rebound).toEqual({
      allowed: false,
      reason: "innocent.example resolves to 169.254.169.254: 169.254.169.254 is a cloud metadata address",
    });
    expect(assessTarget("[::1]", ["::1"])).toEqual({ allowed: true });
    expect(assessTarget("nowhere.invalid", []).allowed).toBe(false);
  });
});
