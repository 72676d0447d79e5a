import { randomBytes } from "node:crypto";
import type http from "node:http";
import { type Context, createCaller } from "@benchboard/api";
import { DEFAULT_INSTALL_SETTINGS } from "@benchboard/core";
import { getVerificationToken, signUp } from "@benchboard/db";
import type { TestDatabase } from "@benchboard/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DnsRecords } from "../test/dns-server";
import { type CountingServer, serve, type TenantInstall, tenantInstall } from "../test/tenant-install";

// Where a tenant's requests may go, attacked as a stranger who signed up would: every server
// here listens on loopback. "internal" plays the operator's own service (a management API that
// answers who you are); it must receive nothing from a tenant. The operator allow-lists 127.0.0.1
// and 127.0.0.2 for its own organization and opens only `open` (and names it chose) to tenants.

const ADMIN_BODY = JSON.stringify({ name: "guest", tags: ["administrator"] });
const prefix = `bbtrust-${randomBytes(4).toString("hex")}`;

let install: TenantInstall;
let t: TestDatabase;
let internal: CountingServer;
let open: CountingServer;
let twin: CountingServer;
let metricsSide: CountingServer;
const served = { token: "" };
let records: Map<string, DnsRecords>;
let dnsServer: TenantInstall["dnsServer"];
let base: Omit<Context, "orgId" | "userId" | "role">;
let operator: ReturnType<typeof createCaller>;
let stranger: ReturnType<typeof createCaller>;
let strangerOrg: string;

const answerWithToken = (req: http.IncomingMessage, res: http.ServerResponse) => {
  if (req.url === "/.well-known/benchboard-verification.txt") {
    res.end(`benchboard-verification=${served.token}\n`);
    return;
  }
  res.setHeader("content-type", "application/json");
  res.end(ADMIN_BODY);
};

beforeAll(async () => {
  internal = await serve((_req, res) => {
    res.setHeader("content-type", "application/json");
    res.end(ADMIN_BODY);
  });
  open = await serve(answerWithToken);
  // Same port as `open`, on 127.0.0.2: where a verified name is re-pointed later.
  twin = await serve(answerWithToken, "127.0.0.2", open.port);
  metricsSide = await serve((_req, res) => res.end("process_resident_memory_bytes 1\n"));
  install = await tenantInstall({
    prefix,
    allowedTargets: ["127.0.0.1", "127.0.0.2"],
    tenantTargets: [
      `127.0.0.1:${open.port}`,
      `moving.test:${open.port}`,
      "dnsonly.test",
      "allports.test",
      `127.0.0.1:${metricsSide.port}`,
    ],
  });
  ({ t, records, dnsServer, base, operator, stranger, strangerOrg } = install);
  served.token = await getVerificationToken(t.db, strangerOrg);
});

afterAll(async () => {
  await install?.close();
  await Promise.all([internal, open, twin, metricsSide].map((s) => s?.close()));
});

const execute = (runId: string) => install.execute(runId);
const projectOf = (caller: ReturnType<typeof createCaller>) => install.projectOf(caller);

/** A one-iteration scenario whose single step is a POST over 30 items. */
const itemsSpec = {
  engine: "http-closed" as const,
  concurrency: 1,
  requests: 1,
  plan: [
    {
      name: "s",
      request: {
        method: "POST" as const,
        path: "/v1/chat/completions",
        headers: { "content-type": "application/json" },
        body: '{"model":"x","messages":[]}',
      },
      withItems: Array.from({ length: 30 }, (_, i) => i),
    },
  ],
};

describe("a probe is small by construction", () => {
  it("refuses the 30-item plan, shards and repetitions at an unverified origin; nothing is sent", async () => {
    await t.db.verifiedOrigin.deleteMany({ where: { orgId: strangerOrg } });
    const project = await projectOf(stranger);
    const target = await stranger.target.create({ projectId: project.id, name: "t", kind: "http", baseUrl: open.url });
    const items = await stranger.scenario.create({ projectId: project.id, name: "items", spec: itemsSpec });
    const probe = await stranger.scenario.create({
      projectId: project.id,
      name: "probe",
      spec: { engine: "http-closed", concurrency: 1, requests: 10 },
    });
    const before = open.hits.length;
    for (const attempt of [
      { scenarioId: items.id },
      { scenarioId: items.id, shards: 1, repetitions: 1 },
      { scenarioId: probe.id, repetitions: 3 },
    ]) {
      await expect(
        stranger.run.launch({ targetId: target.id, ...attempt }),
        JSON.stringify(attempt),
      ).rejects.toMatchObject({ code: "CONFLICT", cause: { field: "targetId" } });
    }
    const withHeaders = await stranger.scenario.create({
      projectId: project.id,
      name: "auth",
      spec: {
        engine: "http-closed",
        concurrency: 1,
        requests: 1,
        request: { method: "GET", path: "/", headers: { authorization: "Basic Z3Vlc3Q6Z3Vlc3Q=" } },
      },
    });
    await expect(stranger.run.launch({ targetId: target.id, scenarioId: withHeaders.id })).rejects.toMatchObject({
      code: "CONFLICT",
    });
    expect(await t.db.run.count({ where: { orgId: strangerOrg } })).toBe(0);
    expect(open.hits.length).toBe(before);
  });

  it("decides again in the worker: a full run whose origin lost its verification sends nothing", async () => {
    const project = await projectOf(stranger);
    const target = await stranger.target.create({ projectId: project.id, name: "t", kind: "http", baseUrl: open.url });
    await stranger.target.verify({ targetId: target.id, method: "http" });
    const items = await stranger.scenario.create({ projectId: project.id, name: "items", spec: itemsSpec });
    const launched = await stranger.run.launch({ targetId: target.id, scenarioId: items.id });
    await t.db.verifiedOrigin.deleteMany({ where: { orgId: strangerOrg } });
    const before = open.hits.length;
    const run = await execute(launched.id);
    expect(run.status).toBe("failed");
    expect(run.error).toContain("is not verified for this organization");
    expect(open.hits.length).toBe(before);
  });

  it("runs a probe as at most 10 GETs of the root without the target's headers, at a slow fixed pace", async () => {
    const project = await projectOf(stranger);
    const target = await stranger.target.create({
      projectId: project.id,
      name: "with-headers",
      kind: "http",
      baseUrl: open.url,
      headers: [{ name: "x-target-header", value: "from-the-target" }],
    });
    const probe = await stranger.scenario.create({
      projectId: project.id,
      name: "probe",
      spec: { engine: "http-closed", concurrency: 1, requests: 10 },
    });
    const launched = await stranger.run.launch({ targetId: target.id, scenarioId: probe.id });
    // Even a probe's stored snapshot, rewritten after launch, cannot make the worker send more.
    await t.db.run.update({
      where: { id: launched.id },
      data: { scenarioSnapshot: { name: "probe", spec: { ...itemsSpec, requests: 10 } } },
    });
    const before = open.hits.length;
    const started = Date.now();
    const run = await execute(launched.id);
    const sent = open.hits.slice(before);
    expect(run.status).toBe("failed");
    expect(sent).toEqual([]);
    // The untampered probe: ten GETs of the root at 5 req/s, nothing else.
    const again = await execute((await stranger.run.launch({ targetId: target.id, scenarioId: probe.id })).id);
    const probed = open.hits.slice(before);
    expect(again.status, again.error ?? "").toBe("succeeded");
    expect(probed.length).toBeLessThanOrEqual(10);
    expect(new Set(probed)).toEqual(new Set(["GET /"]));
    for (const h of open.headers.slice(before)) expect(h["x-target-header"]).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThan(1_500);
  });
});

describe("tenants never reach the install's private side", () => {
  it("refuses the operator's allow-listed services to a tenant in every spelling and field; the internal server gets nothing", async () => {
    records.set("evil.test", { A: ["127.0.0.1"], TXT: [] });
    const project = await projectOf(stranger);
    const spellings = [
      internal.url,
      `http://0x7f000001:${internal.port}`,
      `http://2130706433:${internal.port}`,
      `http://[::ffff:127.0.0.1]:${internal.port}`,
      `http://evil.test:${internal.port}`,
      // Even the port opened to tenants, reached through the tenant's own name.
      `http://evil.test:${open.port}`,
    ];
    for (const url of spellings) {
      for (const field of ["baseUrl", "configApplyUrl", "monitors.0.config.url"] as const) {
        await expect(
          stranger.target.create({
            projectId: project.id,
            name: `t-${randomBytes(3).toString("hex")}`,
            kind: "http",
            baseUrl: field === "baseUrl" ? url : open.url,
            configApplyUrl: field === "configApplyUrl" ? `${url}/admin/config` : null,
            monitors:
              field === "monitors.0.config.url"
                ? [
                    {
                      config: { kind: "rabbitmq", url, username: "guest", vhost: "/", queues: ["q"] },
                      password: "guest",
                    },
                  ]
                : [],
          }),
          `${url} as ${field}`,
        ).rejects.toMatchObject({ code: "CONFLICT", cause: { field } });
      }
    }
    expect(internal.hits).toEqual([]);
  });

  it("stores assert failures by key and expectation, never the answer (the operator's own run against its service)", async () => {
    const project = await projectOf(operator);
    const target = await operator.target.create({
      projectId: project.id,
      name: "mgmt",
      kind: "http",
      baseUrl: internal.url,
    });
    const scenario = await operator.scenario.create({
      projectId: project.id,
      name: "who",
      spec: {
        engine: "http-closed",
        concurrency: 1,
        requests: 1,
        plan: [
          {
            name: "who",
            request: { method: "GET", path: "/api/whoami", headers: {} },
            assign: "r",
            asserts: [{ key: "r.body", value: "x" }],
          },
        ],
      },
    });
    const run = await execute((await operator.run.launch({ targetId: target.id, scenarioId: scenario.id })).id);
    const stored = JSON.stringify({ error: run.error, errors: run.result?.errors });
    expect(stored).toContain('who: r.body is not \\"x\\"');
    expect(stored).not.toContain("administrator");
    expect(stored).not.toContain("guest");
  });
});

describe("names judged before any lookup", () => {
  it("refuses a metadata name without asking a resolver", async () => {
    records.set("metadata.google.internal", { A: ["127.0.0.1"] });
    const project = await projectOf(stranger);
    for (const name of ["metadata.google.internal", "METADATA.GOOGLE.INTERNAL.", "metadata"]) {
      await expect(
        stranger.target.create({
          projectId: project.id,
          name: "m",
          kind: "http",
          baseUrl: `http://${name}:${open.port}/`,
        }),
      ).rejects.toMatchObject({ code: "CONFLICT", cause: { field: "baseUrl" } });
    }
    expect(dnsServer.queriesFor("metadata.google.internal")).toBe(0);
    expect(dnsServer.queriesFor("metadata")).toBe(0);
  });
});

describe("verification binds the server, for a while", () => {
  it("does not let a DNS TXT record authorize load, nor cover the host's other ports", async () => {
    records.set("dnsonly.test", { A: ["127.0.0.1"], TXT: [] });
    records.set("_benchboard-verification.dnsonly.test", { TXT: [`benchboard-verification=${served.token}`] });
    const project = await projectOf(stranger);
    const target = await stranger.target.create({
      projectId: project.id,
      name: "dns",
      kind: "http",
      baseUrl: `http://dnsonly.test:${open.port}`,
      monitors: [
        {
          config: {
            kind: "prometheus",
            url: `http://dnsonly.test:${metricsSide.port}/metrics`,
            memoryMetric: "process_resident_memory_bytes",
            cpuMetric: "c",
            gauges: [],
          },
        },
      ],
    });
    const view = await stranger.target.verify({ targetId: target.id, method: "dns" });
    expect(view.verified).toMatchObject({ method: "dns", coversLoad: false });
    const load = await stranger.scenario.create({
      projectId: project.id,
      name: "load",
      spec: { engine: "http-closed", concurrency: 2, requests: 50 },
    });
    await expect(stranger.run.launch({ targetId: target.id, scenarioId: load.id })).rejects.toMatchObject({
      code: "CONFLICT",
      cause: { field: "targetId", message: expect.stringContaining("verified by DNS only") },
    });
    const monitors = await stranger.target.testMonitors({ targetId: target.id });
    expect(monitors[0]).toMatchObject({ ok: false, error: expect.stringContaining("not on an origin") });
    expect(metricsSide.hits).toEqual([]);
  });

  it("covers the host's other ports (never load) only when the operator allows it", async () => {
    records.set("allports.test", { A: ["127.0.0.1"], TXT: [] });
    records.set("_benchboard-verification.allports.test", { TXT: [`benchboard-verification=${served.token}`] });
    const project = await projectOf(stranger);
    const monitor = {
      config: {
        kind: "prometheus" as const,
        url: `http://allports.test:${metricsSide.port}/metrics`,
        memoryMetric: "process_resident_memory_bytes",
        cpuMetric: "c",
        gauges: [],
      },
    };
    const target = await stranger.target.create({
      projectId: project.id,
      name: "allports",
      kind: "http",
      baseUrl: `http://allports.test:${open.port}`,
      monitors: [monitor],
    });
    await stranger.target.verify({ targetId: target.id, method: "dns" });
    const hitsBefore = metricsSide.hits.length;
    // Off by default: the DNS record covers the verified port only.
    expect((await stranger.target.testMonitors({ targetId: target.id }))[0]).toMatchObject({ ok: false });
    expect(metricsSide.hits.length).toBe(hitsBefore);
    const user = await t.db.user.findUniqueOrThrow({ where: { email: "stranger@example.test" } });
    const widened = createCaller({
      ...base,
      install: { ...DEFAULT_INSTALL_SETTINGS, dnsCoversAllPorts: true },
      orgId: strangerOrg,
      userId: user.id,
      role: "owner",
    });
    expect((await widened.target.testMonitors({ targetId: target.id }))[0]).toMatchObject({ ok: true });
    expect(metricsSide.hits.length).toBeGreaterThan(hitsBefore);
    // Load still needs the HTTP token, whatever the setting.
    const load = await widened.scenario.create({
      projectId: project.id,
      name: "load",
      spec: { engine: "http-closed", concurrency: 2, requests: 50 },
    });
    await expect(widened.run.launch({ targetId: target.id, scenarioId: load.id })).rejects.toMatchObject({
      code: "CONFLICT",
      cause: { field: "targetId", message: expect.stringContaining("verified by DNS only") },
    });
  });

  it("sends load only to the address the token was served from: a name re-pointed after verifying gets nothing", async () => {
    let pointAt = "127.0.0.1";
    records.set("moving.test", { A: () => [pointAt] });
    const project = await projectOf(stranger);
    const target = await stranger.target.create({
      projectId: project.id,
      name: "moving",
      kind: "http",
      baseUrl: `http://moving.test:${open.port}`,
    });
    const view = await stranger.target.verify({ targetId: target.id, method: "http" });
    expect(view.verified).toMatchObject({ method: "http", coversLoad: true });
    expect(view.verified?.expiresAt?.getTime()).toBeGreaterThan(Date.now() + 6.9 * 86_400_000);
    const load = await stranger.scenario.create({
      projectId: project.id,
      name: "load",
      spec: { engine: "http-closed", concurrency: 2, requests: 40 },
    });
    const launched = await stranger.run.launch({ targetId: target.id, scenarioId: load.id });
    pointAt = "127.0.0.2";
    const run = await execute(launched.id);
    expect(run.status).toBe("failed");
    expect(run.error).toContain(
      "moving.test now resolves to 127.0.0.2, not an address the verification token was served from",
    );
    expect(twin.hits).toEqual([]);
  });

  it("expires: a week-old verification no longer lets load through", async () => {
    const project = await projectOf(stranger);
    const target = await stranger.target.create({
      projectId: project.id,
      name: "old",
      kind: "http",
      baseUrl: open.url,
    });
    await stranger.target.verify({ targetId: target.id, method: "http" });
    const load = await stranger.scenario.create({
      projectId: project.id,
      name: "load",
      spec: { engine: "http-closed", concurrency: 2, requests: 20 },
    });
    const fresh = await execute((await stranger.run.launch({ targetId: target.id, scenarioId: load.id })).id);
    expect(fresh.status, fresh.error ?? "").toBe("succeeded");
    await t.db.verifiedOrigin.updateMany({
      where: { orgId: strangerOrg },
      data: { expiresAt: new Date(Date.now() - 1_000) },
    });
    await expect(stranger.run.launch({ targetId: target.id, scenarioId: load.id })).rejects.toMatchObject({
      code: "CONFLICT",
      cause: { field: "targetId", message: expect.stringContaining("expired") },
    });
  });
});

describe("the demo organization is public data, not a membership", () => {
  it("does not list its accounts to a sign-up that reads it", async () => {
    const demo = await t.db.organization.create({ data: { name: "Demo", slug: `demo-${prefix}`, demo: true } });
    await signUp(t.db, { email: "reader@example.test", password: "reader password 12" });
    const reader = await t.db.user.findUniqueOrThrow({ where: { email: "reader@example.test" } });
    // The reader is no member of the demo; it reads it as a viewer through its session.
    expect(await t.db.membership.count({ where: { orgId: demo.id } })).toBe(0);
    const asReader = createCaller({ ...base, orgId: demo.id, userId: reader.id, role: "viewer" });
    const listed = await asReader.member.list().catch((e) => e);
    expect(listed).toMatchObject({ code: "FORBIDDEN" });
    expect(JSON.stringify(listed)).not.toContain("operator@example.test");
    // An owner of a real organization still sees its members.
    expect((await stranger.member.list()).map((m) => m.user.email)).toEqual(["stranger@example.test"]);
  });
});

describe("worker ids", () => {
  it("are shown to the install's own organization only", async () => {
    const project = await projectOf(stranger);
    const target = await stranger.target.create({ projectId: project.id, name: "w", kind: "http", baseUrl: open.url });
    await stranger.target.verify({ targetId: target.id, method: "http" });
    const spec = { engine: "http-closed" as const, concurrency: 1, requests: 3 };
    const scenario = await stranger.scenario.create({ projectId: project.id, name: "w", spec });
    const tenantRun = await execute((await stranger.run.launch({ targetId: target.id, scenarioId: scenario.id })).id);
    expect(tenantRun.workerIds).toEqual([install.workerId]);
    expect((await stranger.run.byId({ id: tenantRun.id })).workerIds).toEqual([]);

    const own = await projectOf(operator);
    const ownTarget = await operator.target.create({ projectId: own.id, name: "w", kind: "http", baseUrl: open.url });
    const ownScenario = await operator.scenario.create({ projectId: own.id, name: "w", spec });
    const ownRun = await execute(
      (await operator.run.launch({ targetId: ownTarget.id, scenarioId: ownScenario.id })).id,
    );
    expect((await operator.run.byId({ id: ownRun.id })).workerIds).toEqual([install.workerId]);
  });
});

describe("the last owner", () => {
  it("stays when two owners demote each other at once", async () => {
    await signUp(t.db, { email: "second@example.test", password: "second password 12" });
    const second = await t.db.user.findUniqueOrThrow({ where: { email: "second@example.test" } });
    const first = await t.db.membership.findFirstOrThrow({ where: { orgId: strangerOrg, role: "owner" } });
    const added = await t.db.membership.create({ data: { orgId: strangerOrg, userId: second.id, role: "owner" } });
    const asSecond = createCaller({ ...base, orgId: strangerOrg, userId: second.id, role: "owner" });
    const results = await Promise.allSettled([
      stranger.member.updateRole({ id: added.id, role: "viewer" }),
      asSecond.member.updateRole({ id: first.id, role: "viewer" }),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(await t.db.membership.count({ where: { orgId: strangerOrg, role: "owner" } })).toBe(1);
  });
});
