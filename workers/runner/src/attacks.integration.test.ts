import { randomBytes } from "node:crypto";
import type { Context, createCaller } from "@benchboard/api";
import { SELF_SERVE_CAPS } from "@benchboard/core";
import { getVerificationToken } from "@benchboard/db";
import type { TestDatabase } from "@benchboard/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DnsRecords } from "../test/dns-server";
import { type CountingServer, serve, type TenantInstall, tenantInstall } from "../test/tenant-install";

// The attacks an outsider tried on an install open to sign-ups, each against real servers on
// 127.0.0.1: an "internal" service that must never be reached (it holds secrets in its answers),
// a server that redirects to it, a server that can serve a verification token, and a DNS server
// for names, TXT records and rebinding. The operator (the install's first account) allow-lists
// 127.0.0.1 for this suite; the stranger signs up like anyone would. Runs are executed by the
// worker's own processor, in this process, against the same database.

const SECRET_BODY = "db_password=hunter2 admin_token=s3cr3t-admin";
const prefix = `bbattack-${randomBytes(4).toString("hex")}`;

let install: TenantInstall;
let t: TestDatabase;
let internal: CountingServer;
let redirector: CountingServer;
let toZero: CountingServer;
let leaky: CountingServer;
let tokenServer: CountingServer;
let served: { token: string | null };
let records: Map<string, DnsRecords>;
let dnsServer: TenantInstall["dnsServer"];
let operator: ReturnType<typeof createCaller>;
let stranger: ReturnType<typeof createCaller>;
let strangerCtx: Context;
let anonymous: ReturnType<typeof createCaller>;
const workerLog: string[] = [];

beforeAll(async () => {
  internal = await serve((_req, res) => {
    res.setHeader("content-type", "text/plain; version=0.0.4");
    res.end(`${SECRET_BODY}\n`);
  });
  redirector = await serve((req, res) => {
    res.writeHead(307, { location: `${internal.url}${req.url}` });
    res.end();
  });
  toZero = await serve((req, res) => {
    res.writeHead(307, { location: `http://0.0.0.0:${internal.port}${req.url}` });
    res.end();
  });
  leaky = await serve((_req, res) => {
    res.writeHead(500, { "content-type": "text/plain" });
    res.end(SECRET_BODY);
  });
  served = { token: null };
  tokenServer = await serve((req, res) => {
    if (req.url === "/.well-known/benchboard-verification.txt") {
      if (!served.token) {
        res.writeHead(404);
        res.end(SECRET_BODY);
        return;
      }
      res.end(`benchboard-verification=${served.token}\n`);
      return;
    }
    if (req.url === "/metrics") {
      res.setHeader("content-type", "text/plain; version=0.0.4");
      res.end("process_resident_memory_bytes 123456789\n");
      return;
    }
    res.end("ok");
  });
  // The install's first account is the operator. It allow-lists 127.0.0.1 for its own
  // organization, and opens only the server tenants' tests use (and a name DNS tests point at it)
  // to tenants, on the operator page's own procedure. A stranger signs up like anyone: an
  // organization of its own, owned by it.
  install = await tenantInstall({
    prefix,
    allowedTargets: ["127.0.0.1"],
    tenantTargets: [`127.0.0.1:${tokenServer.port}`, `svc.test:${tokenServer.port}`],
  });
  ({ t, records, dnsServer, operator, stranger, strangerCtx, anonymous } = install);
});

afterAll(async () => {
  await install?.close();
  await Promise.all([internal, redirector, toZero, leaky, tokenServer].map((s) => s?.close()));
});

/** Run a queued run with the worker's processor, as a worker would. */
const execute = (runId: string) => install.execute(runId, (line) => workerLog.push(line));
const projectOf = (caller: ReturnType<typeof createCaller>) => install.projectOf(caller);

const closedSpec = (requests: number) => ({ engine: "http-closed" as const, concurrency: 1, requests });

describe("a stranger cannot widen where load may go", () => {
  it("has no organization setting to allow private or metadata addresses, and no access to the operator's", async () => {
    await expect(stranger.org.update({ allowPrivateTargets: true } as never)).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
    await expect(stranger.install.get()).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(stranger.install.update({ allowedTargets: ["0.0.0.0/0"] })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    expect(await stranger.install.role()).toMatchObject({ operator: false, installOrganization: false });
    expect(await operator.install.get()).toMatchObject({ allowedTargets: ["127.0.0.1"] });
  });

  it("starts with the operator's self-serve caps", async () => {
    const caps = await stranger.project.caps();
    expect(caps.caps).toEqual(SELF_SERVE_CAPS);
  });

  it("cannot register metadata, link-local, loopback or private addresses in any spelling, nor names that do not resolve", async () => {
    records.set("metadata-alias.test", { A: ["169.254.169.254"] });
    records.set("inside.test", { A: ["10.1.2.3"] });
    const project = await projectOf(stranger);
    const attempts = [
      "http://169.254.169.254/latest/meta-data/",
      "http://[::ffff:169.254.169.254]/",
      "http://0xa9fea9fe/",
      "http://metadata.google.internal/computeMetadata/v1/",
      "http://metadata-alias.test/",
      "http://0.0.0.0:5432/",
      `http://[::1]:5432/`,
      "http://127.0.0.2:6379/",
      "http://0x7f000002:5432/",
      "http://2130706434:5672/",
      "http://0177.0.0.2/",
      "http://10.0.0.1/",
      "http://192.168.1.1/",
      "http://inside.test/",
      "http://[fd00::1]/",
      "http://nowhere.invalid/",
    ];
    for (const url of attempts) {
      for (const field of ["baseUrl", "configApplyUrl", "monitors.0.config.url"] as const) {
        const input = {
          projectId: project.id,
          name: `t-${randomBytes(3).toString("hex")}`,
          kind: "http" as const,
          baseUrl: field === "baseUrl" ? url : tokenServer.url,
          configApplyUrl: field === "configApplyUrl" ? url : null,
          monitors:
            field === "monitors.0.config.url"
              ? [{ config: { kind: "prometheus" as const, url, memoryMetric: "m", cpuMetric: "c", gauges: [] } }]
              : [],
        };
        await expect(stranger.target.create(input), `${url} as ${field}`).rejects.toMatchObject({
          code: "CONFLICT",
          cause: { field },
        });
      }
    }
    expect(await t.db.target.count({ where: { orgId: strangerCtx.orgId! } })).toBe(0);
    expect(internal.hits).toEqual([]);
  });
});

describe("a stranger's load reaches only origins it verified", () => {
  it("cannot launch at an unverified origin, may probe it with ≤ 10 requests, and can launch once verified over HTTP", async () => {
    const project = await projectOf(stranger);
    const target = await stranger.target.create({
      projectId: project.id,
      name: "mine",
      kind: "http",
      baseUrl: tokenServer.url,
    });
    const load = await stranger.scenario.create({
      projectId: project.id,
      name: "load",
      spec: { engine: "http-open", rate: 20, durationS: 1, warmupS: 0, maxConnections: 5 },
    });
    const probe = await stranger.scenario.create({ projectId: project.id, name: "probe", spec: closedSpec(10) });
    const tooBig = await stranger.scenario.create({ projectId: project.id, name: "probe+1", spec: closedSpec(11) });

    await expect(stranger.run.launch({ targetId: target.id, scenarioId: load.id })).rejects.toMatchObject({
      code: "CONFLICT",
      cause: { field: "targetId", message: expect.stringContaining("is not verified for this organization") },
    });
    await expect(stranger.run.launch({ targetId: target.id, scenarioId: tooBig.id })).rejects.toMatchObject({
      code: "CONFLICT",
    });
    const hitsBefore = tokenServer.hits.length;
    const probed = await execute((await stranger.run.launch({ targetId: target.id, scenarioId: probe.id })).id);
    expect(probed.status).toBe("succeeded");
    expect(tokenServer.hits.length - hitsBefore).toBe(10);

    // Nothing published yet: the check says what it got, without repeating the answer's body.
    const view = await stranger.target.verification({ targetId: target.id });
    expect(view).toMatchObject({ trusted: false, verified: null, probeMaxRequests: 10 });
    const notYet = await stranger.target.verify({ targetId: target.id, method: "http" }).catch((e) => e);
    expect(notYet).toMatchObject({ code: "CONFLICT" });
    expect(notYet.message).toMatch(/HTTP 404, \d+ bytes/);
    expect(notYet.message).not.toContain("hunter2");

    served.token = await getVerificationToken(t.db, strangerCtx.orgId!);
    expect(view.http.content).toBe(`benchboard-verification=${served.token}`);
    const verified = await stranger.target.verify({ targetId: target.id, method: "http" });
    expect(verified.verified).toMatchObject({ method: "http" });

    const run = await execute((await stranger.run.launch({ targetId: target.id, scenarioId: load.id })).id);
    expect(run.status, run.error ?? "").toBe("succeeded");
    expect((run.result?.metrics as Record<string, number>).success).toBeGreaterThan(0);

    // Another port of the same address is the operator's, not opened to tenants: the target
    // cannot even point there.
    await expect(
      stranger.target.update({ id: target.id, name: "mine", kind: "http", baseUrl: internal.url }),
    ).rejects.toMatchObject({ code: "CONFLICT", cause: { field: "baseUrl" } });
    expect(internal.hits).toEqual([]);
  });

  it("verifies by a DNS TXT record, looked up on the install's resolver", async () => {
    const token = await getVerificationToken(t.db, strangerCtx.orgId!);
    records.set("svc.test", { A: ["127.0.0.1"] });
    const project = await projectOf(stranger);
    const target = await stranger.target.create({
      projectId: project.id,
      name: "by-dns",
      kind: "http",
      baseUrl: `http://svc.test:${tokenServer.port}`,
    });
    await expect(stranger.target.verify({ targetId: target.id, method: "dns" })).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringContaining("no TXT record at _benchboard-verification.svc.test"),
    });
    records.set("_benchboard-verification.svc.test", { TXT: ["some-other=1", `benchboard-verification=${token}`] });
    const view = await stranger.target.verify({ targetId: target.id, method: "dns" });
    expect(view).toMatchObject({ origin: `http://svc.test:${tokenServer.port}`, verified: { method: "dns" } });
    expect(view.dns).toEqual({ name: "_benchboard-verification.svc.test", value: `benchboard-verification=${token}` });
  });

  it("reads monitors only where tenants may go: an allow-listed internal service is never requested", async () => {
    const project = await projectOf(stranger);
    await expect(
      stranger.target.create({
        projectId: project.id,
        name: "peek",
        kind: "http",
        baseUrl: tokenServer.url,
        monitors: [
          {
            config: {
              kind: "prometheus",
              url: `${internal.url}/metrics`,
              memoryMetric: "m",
              cpuMetric: "c",
              gauges: [],
            },
          },
        ],
      }),
    ).rejects.toMatchObject({ code: "CONFLICT", cause: { field: "monitors.0.config.url" } });
    // A process monitor, which reads the worker host's processes, is refused to a stranger on save.
    await expect(
      stranger.target.create({
        projectId: project.id,
        name: "peek at processes",
        kind: "http",
        baseUrl: tokenServer.url,
        monitors: [{ config: { kind: "process", port: internal.port } }],
      }),
    ).rejects.toMatchObject({ code: "CONFLICT", cause: { field: "monitors.0.config.kind" } });
    expect(internal.hits).toEqual([]);
  });
});

describe("requests that are not load", () => {
  it("follow no redirects: monitors and test connection report the 307 and never reach the internal server", async () => {
    const project = await projectOf(operator);
    const target = await operator.target.create({
      projectId: project.id,
      name: "redirected",
      kind: "http",
      baseUrl: redirector.url,
      monitors: [
        {
          config: {
            kind: "prometheus",
            url: `${redirector.url}/metrics`,
            memoryMetric: "process_resident_memory_bytes",
            cpuMetric: "c",
            gauges: [],
          },
        },
        {
          config: {
            kind: "prometheus",
            url: `${toZero.url}/metrics`,
            memoryMetric: "process_resident_memory_bytes",
            cpuMetric: "c",
            gauges: [],
          },
        },
      ],
    });
    const results = await operator.target.testMonitors({ targetId: target.id });
    expect(results.map((r) => r.ok)).toEqual([false, false]);
    for (const r of results) expect(r.error).toMatch(/HTTP 307 \(a redirect; redirects are not followed\), 0 bytes/);
    expect(redirector.hits).toContain("GET /metrics");
    expect(toZero.hits).toContain("GET /metrics");
    expect(internal.hits).toEqual([]);
  });

  it("never return a response body: config apply, Prometheus parse errors and test connection report status and size", async () => {
    const project = await projectOf(operator);
    const target = await operator.target.create({
      projectId: project.id,
      name: "leaky",
      kind: "http",
      baseUrl: tokenServer.url,
      configApplyUrl: `${leaky.url}/admin/config`,
      monitors: [
        {
          config: {
            kind: "prometheus",
            url: `${internal.url}/metrics`,
            memoryMetric: "process_resident_memory_bytes",
            cpuMetric: "c",
            gauges: [],
          },
        },
      ],
    });
    // The install's own organization may read its internal metrics endpoint: what comes back is
    // readings and line numbers, never the lines themselves.
    const probe = await operator.target.testMonitors({ targetId: target.id });
    expect(JSON.stringify(probe)).not.toContain("hunter2");
    expect(JSON.stringify(probe)).not.toContain("s3cr3t");
    expect(probe[0]?.details).toMatchObject({ parseErrorCount: 1, parseErrors: [{ line: 1 }] });
    const internalHits = internal.hits.length;

    const config = await operator.instanceConfig.create({ projectId: project.id, name: "c", knobs: { pool: 8 } });
    const scenario = await operator.scenario.create({ projectId: project.id, name: "s", spec: closedSpec(5) });
    const launched = await operator.run.launch({
      targetId: target.id,
      scenarioId: scenario.id,
      instanceConfigId: config.id,
    });
    const run = await execute(launched.id);
    expect(run.status).toBe("failed");
    expect(run.error).toMatch(/the target's config hook refused the instance config \(HTTP 500, \d+ bytes\)/);
    expect(run.error).not.toContain("hunter2");
    expect(leaky.hits).toEqual(["PUT /admin/config"]);
    expect(internal.hits.length).toBe(internalHits);
  });

  it("connects to the address that was checked: a name that rebinds after the check is not looked up again", async () => {
    let asked = 0;
    // The first two answers (registration, then the worker's check) are 127.0.0.1; every later
    // answer would be the metadata address.
    records.set("rebind.test", { A: () => (++asked <= 2 ? ["127.0.0.1"] : ["169.254.169.254"]) });
    const project = await projectOf(operator);
    const target = await operator.target.create({
      projectId: project.id,
      name: "rebind",
      kind: "http",
      baseUrl: `http://rebind.test:${tokenServer.port}`,
    });
    const scenario = await operator.scenario.create({
      projectId: project.id,
      name: "many",
      spec: { engine: "http-closed", concurrency: 4, requests: 40 },
    });
    const before = tokenServer.hits.length;
    const run = await execute((await operator.run.launch({ targetId: target.id, scenarioId: scenario.id })).id);
    expect(run.status, run.error ?? "").toBe("succeeded");
    expect((run.result?.metrics as Record<string, number>).success).toBe(40);
    expect(tokenServer.hits.length - before).toBe(40);
    expect(dnsServer.queriesFor("rebind.test")).toBe(2);
  });

  it("runs process monitors only in a worker, for the install's organization", async () => {
    const project = await projectOf(operator);
    const target = await operator.target.create({
      projectId: project.id,
      name: "proc",
      kind: "http",
      baseUrl: tokenServer.url,
      monitors: [{ config: { kind: "process", pid: process.pid } }],
    });
    // In the web process (test connection): never.
    const tested = await operator.target.testMonitors({ targetId: target.id });
    expect(tested[0]).toMatchObject({ ok: false, error: expect.stringContaining("only inside a worker") });
    // In a worker, for the install's own run: yes.
    const scenario = await operator.scenario.create({
      projectId: project.id,
      name: "2s",
      spec: { engine: "http-closed", concurrency: 1, durationS: 2 },
    });
    const run = await execute((await operator.run.launch({ targetId: target.id, scenarioId: scenario.id })).id);
    expect(run.status, run.error ?? "").toBe("succeeded");
    expect((run.result?.metrics as Record<string, number>).mem_peak_bytes).toBeGreaterThan(1_000_000);
  });
});

describe("secrets stay bound to their origin", () => {
  it("test connection sends a stored password only to the URL it was stored for", async () => {
    const project = await projectOf(operator);
    const target = await operator.target.create({
      projectId: project.id,
      name: "rabbit",
      kind: "ws_chat",
      baseUrl: tokenServer.url,
      monitors: [
        {
          config: { kind: "rabbitmq", url: tokenServer.url, username: "guest", vhost: "/", queues: ["q"] },
          password: "rabbit-secret-password",
        },
      ],
    });
    const id = target.monitors[0]!.id;
    const before = leaky.headers.length;
    await operator.target.testMonitors({
      targetId: target.id,
      monitors: [{ id, config: { kind: "rabbitmq", url: leaky.url, username: "guest", vhost: "/", queues: ["q"] } }],
    });
    const sent = leaky.headers
      .slice(before)
      .map((h) => Buffer.from(String(h.authorization ?? "").replace(/^Basic /, ""), "base64").toString());
    expect(sent.length).toBeGreaterThan(0);
    for (const auth of sent) expect(auth).not.toContain("rabbit-secret-password");
  });
});

describe("caps", () => {
  it("count 64 shards as 64 worker slots", async () => {
    const project = await projectOf(operator);
    const target = await operator.target.create({
      projectId: project.id,
      name: "wide",
      kind: "http",
      baseUrl: tokenServer.url,
    });
    const scenario = await operator.scenario.create({
      projectId: project.id,
      name: "64",
      spec: { engine: "http-closed", concurrency: 64, requests: 640 },
    });
    await t.db.run.updateMany({ where: { status: { in: ["queued", "running"] } }, data: { status: "canceled" } });
    const wide = await operator.run.launch({ targetId: target.id, scenarioId: scenario.id, shards: 64 });
    expect((await operator.project.caps()).activeWorkerSlots).toBe(64);
    await expect(operator.run.launch({ targetId: target.id, scenarioId: scenario.id })).rejects.toMatchObject({
      code: "CONFLICT",
      cause: {
        field: "shards",
        message: "needs 1 worker slot (one per shard) with 64 in use; the organization may hold 64 at a time",
      },
    });
    await t.db.run.update({ where: { id: wide.id }, data: { status: "canceled" } });

    // A self-serve organization holds 4.
    const mine = await projectOf(stranger);
    const own = await stranger.target.create({ projectId: mine.id, name: "t", kind: "http", baseUrl: tokenServer.url });
    const spec = await stranger.scenario.create({
      projectId: mine.id,
      name: "8",
      spec: { engine: "http-closed", concurrency: 8, requests: 8 },
    });
    await expect(stranger.run.launch({ targetId: own.id, scenarioId: spec.id, shards: 8 })).rejects.toMatchObject({
      code: "CONFLICT",
      cause: { field: "shards" },
    });
  });

  it("hold a tenant's closed-model run at its rate cap: achieved ≤ cap", async () => {
    await t.db.organization.update({
      where: { id: strangerCtx.orgId! },
      data: { caps: { ...SELF_SERVE_CAPS, maxRate: 50 } },
    });
    const project = await projectOf(stranger);
    const target = await stranger.target.create({
      projectId: project.id,
      name: "fast",
      kind: "http",
      baseUrl: tokenServer.url,
    });
    const scenario = await stranger.scenario.create({
      projectId: project.id,
      name: "closed",
      spec: { engine: "http-closed", concurrency: 10, durationS: 2 },
    });
    const run = await execute((await stranger.run.launch({ targetId: target.id, scenarioId: scenario.id })).id);
    expect(run.status, run.error ?? "").toBe("succeeded");
    const rps = (run.result?.metrics as Record<string, number>).rps!;
    expect(rps).toBeLessThanOrEqual(50 * 1.05);
    expect(rps).toBeGreaterThan(30);
  });
});

describe("dead targets", () => {
  it("end the run as failed once every connection was refused for 5 s, with the rate counting only answers", async () => {
    const closed = await serve(() => {});
    const deadUrl = closed.url;
    await closed.close();
    const project = await projectOf(operator);
    const target = await operator.target.create({
      projectId: project.id,
      name: "dead",
      kind: "http",
      baseUrl: deadUrl,
    });
    const scenario = await operator.scenario.create({
      projectId: project.id,
      name: "30s",
      spec: { engine: "http-closed", concurrency: 2, durationS: 30 },
    });
    const started = Date.now();
    const run = await execute((await operator.run.launch({ targetId: target.id, scenarioId: scenario.id })).id);
    const tookMs = Date.now() - started;
    expect(run.status).toBe("failed");
    expect(run.error).toBe("the target refused every connection for 5 s");
    expect(tookMs).toBeLessThan(12_000);
    const metrics = run.result?.metrics as Record<string, number>;
    expect(metrics.rps).toBe(0);
    expect(metrics.failed_connections).toBeGreaterThan(0);
    expect(metrics.failed_connections).toBe(metrics.requests);
  });
});

describe("sign-up", () => {
  it("is refused when the operator closes it, and allowed again when reopened", async () => {
    await operator.install.update({ signupOpen: false });
    await expect(
      anonymous.auth.signUp({ email: "late@example.test", password: "late password 12" }),
    ).rejects.toMatchObject({ code: "CONFLICT", cause: { field: "email" } });
    expect(await t.db.user.count({ where: { email: "late@example.test" } })).toBe(0);
    await operator.install.update({ signupOpen: true });
    // Open again: the sign-up is taken, and its account is made once the mailed link is opened.
    await expect(
      anonymous.auth.signUp({ email: "late@example.test", password: "late password 12" }),
    ).resolves.toMatchObject({ signedIn: false });
    expect(await t.db.signUpConfirmation.count({ where: { email: "late@example.test" } })).toBe(1);
  });
});
