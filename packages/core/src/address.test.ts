import { describe, expect, it } from "vitest";
import { assessTarget, canonicalOrigin, classifyIp, EMPTY_ALLOW_LIST, parseAllowList, parseIp } from "./address";
import {
  allowListForOrg,
  DEFAULT_INSTALL_SETTINGS,
  InstallEnvError,
  installSettingsFromEnv,
  isProbe,
  mergeInstallSettings,
  probeRefusal,
  probeSpec,
} from "./install";
import { ZScenarioSpec } from "./scenario";

const dest = (hostname: string, port = 80) => ({ hostname, port });
const allow = (text: string) => parseAllowList(text).list;

describe("IP spellings", () => {
  it.each([
    ["127.0.0.1", "127.0.0.1"],
    ["0x7f000001", "127.0.0.1"],
    ["0X7F.0.0.1", "127.0.0.1"],
    ["2130706433", "127.0.0.1"],
    ["0177.0.0.1", "127.0.0.1"],
    ["017700000001", "127.0.0.1"],
    ["127.1", "127.0.0.1"],
    ["127.0.1", "127.0.0.1"],
    ["[::1]", "0:0:0:0:0:0:0:1"],
    ["::ffff:127.0.0.1", "127.0.0.1"],
    ["::ffff:7f00:1", "127.0.0.1"],
    ["[::FFFF:169.254.169.254]", "169.254.169.254"],
    ["0.0.0.0", "0.0.0.0"],
    ["0", "0.0.0.0"],
    ["fe80::1%eth0", "fe80:0:0:0:0:0:0:1"],
  ])("%s is %s", (spelling, canonical) => {
    expect(parseIp(spelling)?.text).toBe(canonical);
  });

  it.each([
    ["example.com"],
    ["256.0.0.1"],
    ["1.2.3.4.5"],
    ["0x1g"],
    ["08.0.0.1"],
    ["1::2::3"],
    ["host.123"],
  ])("%s is not an address", (text) => {
    expect(parseIp(text)).toBeNull();
  });
});

describe("address classes", () => {
  it.each([
    ["169.254.169.254", "metadata"],
    ["100.100.100.200", "metadata"],
    ["fd00:ec2::254", "metadata"],
    ["169.254.1.1", "link-local"],
    ["fe80::1", "link-local"],
    ["0.0.0.0", "unspecified"],
    ["::", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["127.0.0.1", "loopback"],
    ["::1", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.5.4", "private"],
    ["192.168.0.10", "private"],
    ["100.64.0.1", "private"],
    ["fd12::1", "private"],
    ["::127.0.0.1", "loopback"],
    ["64:ff9b::a9fe:a9fe", "metadata"],
    ["2002:7f00:1::", "loopback"],
    ["8.8.8.8", "public"],
    ["2606:4700::1111", "public"],
  ])("%s is %s", (ip, kind) => {
    expect(classifyIp(parseIp(ip)!)).toBe(kind);
  });
});

describe("target verdicts", () => {
  it("refuses loopback and private addresses the operator has not allowed, in every spelling", () => {
    for (const host of ["127.0.0.1", "0x7f000001", "2130706433", "0177.0.0.1", "::1", "::ffff:127.0.0.1", "10.0.0.5"]) {
      const v = assessTarget(dest(host), [host], EMPTY_ALLOW_LIST);
      expect(v.allowed, host).toBe(false);
      expect(!v.allowed && v.reason).toContain("the operator of this install has not allowed");
    }
    expect(assessTarget(dest("8.8.8.8"), ["8.8.8.8"], EMPTY_ALLOW_LIST)).toEqual({ allowed: true });
  });

  it("allows what the operator lists: CIDRs, addresses, host:port", () => {
    const list = allow("127.0.0.0/8, 10.0.0.0/8 db.internal:5432 [::1]:8080");
    expect(assessTarget(dest("0x7f000001"), ["127.0.0.1"], list)).toEqual({ allowed: true });
    expect(assessTarget(dest("10.9.9.9"), ["10.9.9.9"], list)).toEqual({ allowed: true });
    expect(assessTarget(dest("db.internal", 5432), ["192.168.1.4"], list)).toEqual({ allowed: true });
    expect(assessTarget(dest("db.internal", 6379), ["192.168.1.4"], list).allowed).toBe(false);
    expect(assessTarget(dest("::1", 8080), ["::1"], list)).toEqual({ allowed: true });
    expect(assessTarget(dest("::1", 5432), ["::1"], list).allowed).toBe(false);
  });

  it("refuses metadata, link-local and unspecified addresses even when a range covers them", () => {
    const everything = allow("0.0.0.0/0 ::/0");
    for (const ip of ["169.254.169.254", "169.254.1.1", "0.0.0.0", "fe80::1", "::ffff:a9fe:a9fe"]) {
      expect(assessTarget(dest(ip), [ip], everything).allowed, ip).toBe(false);
    }
    expect(assessTarget(dest("metadata.google.internal"), ["10.0.0.1"], everything).allowed).toBe(false);
    expect(assessTarget(dest("Metadata.Google.Internal."), ["10.0.0.1"], everything).allowed).toBe(false);
  });

  it("refuses a name when any address it resolves to is refused, or when it resolves to none", () => {
    const rebound = assessTarget(dest("innocent.example"), ["93.184.216.34", "169.254.169.254"], EMPTY_ALLOW_LIST);
    expect(rebound).toEqual({
      allowed: false,
      reason:
        "innocent.example resolves to 169.254.169.254: 169.254.169.254 is a cloud metadata address, never a target",
    });
    expect(assessTarget(dest("nowhere.invalid"), [], EMPTY_ALLOW_LIST).allowed).toBe(false);
  });

  it("reports every bad allow-list entry", () => {
    expect(parseAllowList("10.0.0.0/33, 1.2.3.4:99999, ok.host:80, not a host!").errors).toHaveLength(3);
  });

  it("names origins canonically", () => {
    expect(canonicalOrigin("http://0x7f000001/x")).toBe("http://127.0.0.1:80");
    expect(canonicalOrigin("https://API.example.com./")).toBe("https://api.example.com:443");
    expect(canonicalOrigin("ws://[::1]:8080/ws")).toBe("http://[0:0:0:0:0:0:0:1]:8080");
    expect(canonicalOrigin("ftp://x")).toBeNull();
  });
});

describe("install settings", () => {
  it("read the environment, with self-serve defaults", () => {
    expect(DEFAULT_INSTALL_SETTINGS.defaultCaps).toEqual({
      maxRate: 1_000,
      maxConnections: 200,
      maxDurationS: 300,
      maxConcurrentRuns: 2,
      maxWorkerSlots: 4,
    });
    expect(DEFAULT_INSTALL_SETTINGS.allowedTargets.entries).toEqual([]);
    const s = installSettingsFromEnv({
      BENCHBOARD_ALLOWED_TARGETS: "127.0.0.1/32,db.internal:5432",
      BENCHBOARD_SIGNUP: "closed",
      BENCHBOARD_DEFAULT_MAX_RATE: "50",
    });
    expect(s.signupOpen).toBe(false);
    expect(s.defaultCaps.maxRate).toBe(50);
    expect(s.allowedTargets.entries.map((e) => e.text)).toEqual(["127.0.0.1/32", "db.internal:5432"]);
    expect(() => installSettingsFromEnv({ BENCHBOARD_ALLOWED_TARGETS: "10.0.0.0/99" })).toThrow(InstallEnvError);
  });

  it("let a DNS verification cover only its port unless the operator says true", () => {
    expect(DEFAULT_INSTALL_SETTINGS.dnsCoversAllPorts).toBe(false);
    expect(installSettingsFromEnv({ BENCHBOARD_DNS_ALL_PORTS: "false" }).dnsCoversAllPorts).toBe(false);
    expect(installSettingsFromEnv({ BENCHBOARD_DNS_ALL_PORTS: "true" }).dnsCoversAllPorts).toBe(true);
    expect(() => installSettingsFromEnv({ BENCHBOARD_DNS_ALL_PORTS: "yes" })).toThrow(
      /BENCHBOARD_DNS_ALL_PORTS: use true or false/,
    );
  });

  it("take the operator's stored edits over the environment", () => {
    const merged = mergeInstallSettings(DEFAULT_INSTALL_SETTINGS, {
      allowedTargets: ["10.0.0.0/8"],
      signupOpen: false,
      defaultCaps: { maxRate: 20 },
    });
    expect(merged.allowedTargets.entries.map((e) => e.text)).toEqual(["10.0.0.0/8"]);
    expect(merged.signupOpen).toBe(false);
    expect(merged.defaultCaps).toMatchObject({ maxRate: 20, maxConnections: 200 });
  });

  it("call at most 10 GET or HEAD requests of the root, one at a time and unadorned, a probe; nothing else", () => {
    const closed = (extra: object) => ZScenarioSpec.parse({ engine: "http-closed", concurrency: 1, ...extra });
    expect(isProbe(closed({ requests: 10 }))).toBe(true);
    expect(isProbe(closed({ requests: 3, request: { method: "HEAD" } }))).toBe(true);
    expect(isProbe(closed({ requests: 11 }))).toBe(false);
    expect(isProbe(closed({ durationS: 1 }))).toBe(false);
    expect(isProbe(ZScenarioSpec.parse({ engine: "http-open", rate: 1, durationS: 1 }))).toBe(false);
    expect(isProbe(ZScenarioSpec.parse({ engine: "http-closed", concurrency: 2, requests: 2 }))).toBe(false);
    expect(isProbe(closed({ requests: 1, request: { method: "POST" } }))).toBe(false);
    expect(isProbe(closed({ requests: 1, request: { path: "/admin/config" } }))).toBe(false);
    expect(isProbe(closed({ requests: 1, request: { headers: { authorization: "Basic x" } } }))).toBe(false);
    expect(isProbe(closed({ requests: 1, request: { body: "" } }))).toBe(false);
    const items = closed({
      requests: 1,
      plan: [{ name: "s", request: { path: "/" }, withItems: Array.from({ length: 30 }, (_, i) => i) }],
    });
    expect(isProbe(items)).toBe(false);
    expect(probeRefusal(items, { shards: 1, runs: 1 })).toMatch(/at most 10 GET or HEAD requests/);
    expect(probeRefusal(closed({ requests: 10 }), { shards: 2, runs: 1 })).toMatch(/one shard/);
    expect(probeRefusal(closed({ requests: 10 }), { shards: 1, runs: 3 })).toMatch(/launched once/);
    expect(probeRefusal(closed({ requests: 10 }), { shards: 1, runs: 1 })).toBeNull();
  });

  it("build a probe's spec from nothing but a count: at most 10 GETs of the root", () => {
    const anything = ZScenarioSpec.parse({
      engine: "http-closed",
      concurrency: 50,
      requests: 100_000,
      request: { method: "POST", path: "/admin/config", headers: { authorization: "x" }, body: "{}" },
      plan: [{ name: "s", request: { method: "PATCH", path: "/x" }, withItems: [1, 2, 3] }],
    });
    const probe = probeSpec(anything);
    expect(probe).toEqual({
      engine: "http-closed",
      request: { method: "GET", path: "/", headers: {} },
      concurrency: 1,
      requests: 10,
      rampUpS: 0,
      timeoutMs: 10_000,
    });
    expect(probeSpec(ZScenarioSpec.parse({ engine: "http-open", rate: 1000, durationS: 60 })).requests).toBe(1);
  });

  it("give the install's organization the whole allow-list and tenants only what was opened to them", () => {
    const settings = installSettingsFromEnv({
      BENCHBOARD_ALLOWED_TARGETS: "127.0.0.1",
      BENCHBOARD_TENANT_TARGETS: "127.0.0.1:4100, gw.test:8080",
    });
    const own = allowListForOrg(settings, true);
    const tenant = allowListForOrg(settings, false);
    expect(own.entries.map((e) => e.text)).toEqual(["127.0.0.1", "127.0.0.1:4100", "gw.test:8080"]);
    expect(assessTarget(dest("127.0.0.1", 15672), ["127.0.0.1"], own).allowed).toBe(true);
    expect(assessTarget(dest("127.0.0.1", 15672), ["127.0.0.1"], tenant).allowed).toBe(false);
    expect(assessTarget(dest("127.0.0.1", 4100), ["127.0.0.1"], tenant).allowed).toBe(true);
    // A tenant's own name pointed at the opened address proves nothing about the server.
    expect(assessTarget(dest("evil.test", 4100), ["127.0.0.1"], tenant).allowed).toBe(false);
    // A name the operator opened is allowed by name.
    expect(assessTarget(dest("gw.test", 8080), ["10.1.2.3"], tenant).allowed).toBe(true);
    expect(assessTarget(dest("gw.test", 8081), ["10.1.2.3"], tenant).allowed).toBe(false);
    // Public addresses are not the allow-list's business.
    expect(assessTarget(dest("example.test", 80), ["93.184.216.34"], tenant).allowed).toBe(true);
    expect(settings.verificationDays).toBe(7);
    expect(() => installSettingsFromEnv({ BENCHBOARD_TENANT_TARGETS: "10.0.0.0/99" })).toThrow(
      /BENCHBOARD_TENANT_TARGETS/,
    );
  });
});
