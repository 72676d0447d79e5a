import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { decryptTargetSecrets, ensureLocalOrganization } from "@benchboard/db";
import { allowLoopbackTargets, createTestDatabase, type TestDatabase } from "@benchboard/db/testing";
import { createRunsQueue, DEFAULT_REDIS_URL } from "@benchboard/jobs";
import type { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCaller } from "../root";
import type { Context } from "../trpc";

// Targets against real PostgreSQL, a real metrics endpoint and the real RabbitMQ management API:
// secret values are encrypted at rest, write-only through every procedure, and used by "test
// connection" without ever coming back.
const SECRET = "Bearer sk-test-0123456789abcdef";
const RABBIT_URL = "http://127.0.0.1:15672";
let t: TestDatabase;
let queue: Queue;
let projectId: string;
let orgId: string;
let metricsServer: http.Server;
let metricsUrl: string;
let metricsPort: number;
const key = randomBytes(32);
const queueName = `bb-monitor-${randomBytes(3).toString("hex")}`;

function caller(overrides: Partial<Context> = {}) {
  return createCaller({ db: t.db, queue, orgId, userId: null, role: "member", secretKey: key, ...overrides });
}

beforeAll(async () => {
  t = await createTestDatabase();
  // Test servers listen on 127.0.0.1, which this install's operator allows as a target.
  await allowLoopbackTargets(t.db);
  queue = createRunsQueue(process.env.REDIS_URL ?? DEFAULT_REDIS_URL, `bbtest-${randomBytes(4).toString("hex")}`);
  // The install's own organization: the operator trusts its origins, so no verification is needed.
  const org = await ensureLocalOrganization(t.db);
  orgId = org.id;
  projectId = (await caller().project.create({ name: "gateway" })).id;
  metricsServer = http.createServer((_req, res) => {
    res.setHeader("content-type", "text/plain; version=0.0.4");
    res.end(
      "# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes 123456789\n" +
        `# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total ${process.cpuUsage().user / 1e6}\n`,
    );
  });
  await new Promise<void>((r) => metricsServer.listen(0, "127.0.0.1", r));
  metricsPort = (metricsServer.address() as AddressInfo).port;
  metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  const auth = `Basic ${Buffer.from("guest:guest").toString("base64")}`;
  const put = await fetch(`${RABBIT_URL}/api/queues/%2F/${queueName}`, {
    method: "PUT",
    headers: { authorization: auth, "content-type": "application/json" },
    body: JSON.stringify({ durable: false, auto_delete: false }),
  });
  expect(put.ok, `RabbitMQ management API: HTTP ${put.status}`).toBe(true);
});

afterAll(async () => {
  const auth = `Basic ${Buffer.from("guest:guest").toString("base64")}`;
  await fetch(`${RABBIT_URL}/api/queues/%2F/${queueName}`, { method: "DELETE", headers: { authorization: auth } });
  metricsServer?.close();
  await queue?.close();
  await t?.drop();
});

const rabbit = (password?: string) => ({
  config: { kind: "rabbitmq" as const, url: RABBIT_URL, queues: [queueName], username: "guest", vhost: "/" },
  ...(password !== undefined ? { password } : {}),
});

describe("target secrets", () => {
  it("stores secret header values and the RabbitMQ password encrypted, and never returns them", async () => {
    const created = await caller().target.create({
      projectId,
      name: "gw",
      kind: "llm",
      baseUrl: "http://127.0.0.1:4100",
      headers: [
        { name: "Authorization", value: SECRET, secret: true },
        { name: "X-Team", value: "perf" },
      ],
      monitors: [rabbit("guest")],
    });
    expect(created.headers).toEqual([
      { name: "Authorization", secret: true },
      { name: "X-Team", value: "perf" },
    ]);
    expect(created.monitors[0]).toMatchObject({ kind: "rabbitmq", hasPassword: true });
    expect(created.monitors[0]).not.toHaveProperty("password");

    const row = await t.db.target.findUniqueOrThrow({ where: { id: created.id } });
    const rowText = JSON.stringify(row);
    expect(rowText).not.toContain("sk-test");
    expect(JSON.stringify(row.monitors)).not.toContain('password"');
    expect(row.secrets).toMatch(/^v1\./);
    expect(decryptTargetSecrets(key, orgId, row.secrets)).toEqual({
      headers: { Authorization: SECRET },
      monitorPasswords: { [created.monitors[0]!.id]: "guest" },
    });

    const outputs = [
      created,
      await caller().target.byId({ id: created.id }),
      await caller().target.list({ projectId }),
      await caller({ role: "viewer" }).target.list(),
    ];
    for (const out of outputs) expect(JSON.stringify(out)).not.toContain("sk-test");
  });

  it("keeps, renames, replaces and removes a secret through updates", async () => {
    const target = await caller().target.create({
      projectId,
      name: "edit-me",
      kind: "http",
      baseUrl: "http://127.0.0.1:1",
      headers: [{ name: "X-Api-Key", value: "first", secret: true }],
    });
    const secrets = async () =>
      decryptTargetSecrets(key, orgId, (await t.db.target.findUniqueOrThrow({ where: { id: target.id } })).secrets);
    // Same origin as stored, another path: secrets stay with it.
    const base = { id: target.id, name: "edit-me", kind: "http" as const, baseUrl: "http://127.0.0.1:1/v2" };

    // Empty value: the form showed "•••• (set)" and the user left it alone.
    await caller().target.update({ ...base, headers: [{ name: "X-Api-Key", secret: true }] });
    expect((await secrets()).headers).toEqual({ "X-Api-Key": "first" });
    await caller().target.update({ ...base, headers: [{ name: "X-Key", secret: true, from: "X-Api-Key" }] });
    expect((await secrets()).headers).toEqual({ "X-Key": "first" });
    await caller().target.update({ ...base, headers: [{ name: "X-Key", secret: true, value: "second" }] });
    expect((await secrets()).headers).toEqual({ "X-Key": "second" });
    await caller().target.update({ ...base, headers: [] });
    expect((await t.db.target.findUniqueOrThrow({ where: { id: target.id } })).secrets).toBeNull();

    // A secret with nothing stored to keep is refused at its value field; nothing changes.
    const before = await t.db.target.findUniqueOrThrow({ where: { id: target.id } });
    await expect(
      caller().target.update({ ...base, baseUrl: "http://127.0.0.1:1/v3", headers: [{ name: "New", secret: true }] }),
    ).rejects.toMatchObject({ code: "CONFLICT", cause: { field: "headers.0.value" } });
    expect(await t.db.target.findUniqueOrThrow({ where: { id: target.id } })).toEqual(before);

    // A secret belongs to its origin: moving the target elsewhere clears it instead of sending it there.
    await caller().target.update({ ...base, headers: [{ name: "X-Key", secret: true, value: "third" }] });
    const moved = await caller().target.update({
      ...base,
      baseUrl: "http://127.0.0.1:2",
      headers: [{ name: "X-Key", secret: true }],
    });
    expect(moved.headers).toEqual([]);
    expect((await t.db.target.findUniqueOrThrow({ where: { id: target.id } })).secrets).toBeNull();
  });

  it("refuses to store a secret when the server has no key, naming the field", async () => {
    await expect(
      caller({ secretKey: null }).target.create({
        projectId,
        name: "no-key",
        kind: "http",
        baseUrl: "http://127.0.0.1:1",
        headers: [{ name: "Authorization", value: SECRET, secret: true }],
      }),
    ).rejects.toMatchObject({
      code: "CONFLICT",
      cause: { field: "headers.0.value", message: /BENCHBOARD_SECRET_KEY/ },
    });
    expect(await t.db.target.count({ where: { name: "no-key" } })).toBe(0);
  });
});

describe("target validation", () => {
  it("names the field for bad URLs, duplicate headers, duplicate names and metadata addresses; stores nothing", async () => {
    const before = await t.db.target.count();
    const base = { projectId, name: "bad", kind: "http" as const, baseUrl: "http://127.0.0.1:1" };
    await expect(caller().target.create({ ...base, baseUrl: "ftp://x" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      cause: { issues: [{ path: ["baseUrl"] }] },
    });
    await expect(
      caller().target.create({
        ...base,
        headers: [
          { name: "X-A", value: "1" },
          { name: "x-a", value: "2" },
        ],
      }),
    ).rejects.toMatchObject({
      cause: { issues: [{ path: ["headers", 1, "name"], message: "header names must be unique" }] },
    });
    await expect(
      caller().target.create({ ...base, monitors: [{ config: { kind: "process" } as never }] }),
    ).rejects.toMatchObject({ cause: { issues: [{ path: ["monitors", 0, "config", "pid"] }] } });
    await expect(caller().target.create({ ...base, baseUrl: "http://169.254.169.254/" })).rejects.toMatchObject({
      code: "CONFLICT",
      cause: { field: "baseUrl" },
    });
    await caller().target.create({ ...base, name: "taken" });
    await expect(caller().target.create({ ...base, name: "taken" })).rejects.toMatchObject({
      code: "CONFLICT",
      cause: { field: "name", message: 'a target named "taken" already exists in this project' },
    });
    expect(await t.db.target.count()).toBe(before + 1);
  });

  it("takes overhead stages on create and update, refusing a malformed, repeated or too long list by field", async () => {
    const base = { projectId, name: "stages", kind: "llm" as const, baseUrl: "http://127.0.0.1:1" };
    const before = await t.db.target.count();
    await expect(
      caller().target.create({ ...base, overheadStages: ["queue_wait", "Key Selection"] }),
    ).rejects.toMatchObject({
      code: "BAD_REQUEST",
      cause: { issues: [{ path: ["overheadStages", 1], message: expect.stringMatching(/^each overhead stage is/) }] },
    });
    await expect(caller().target.create({ ...base, overheadStages: ["a".repeat(65)] })).rejects.toMatchObject({
      cause: { issues: [{ path: ["overheadStages", 0] }] },
    });
    await expect(caller().target.create({ ...base, overheadStages: ["q", "q"] })).rejects.toMatchObject({
      cause: { issues: [{ path: ["overheadStages", 1], message: 'overhead stage "q" appears twice' }] },
    });
    await expect(
      caller().target.create({ ...base, overheadStages: Array.from({ length: 33 }, (_, i) => `s${i}`) }),
    ).rejects.toMatchObject({
      cause: { issues: [{ path: ["overheadStages"], message: "overhead stages: at most 32 names" }] },
    });
    expect(await t.db.target.count()).toBe(before);

    const created = await caller().target.create({ ...base, overheadStages: [" queue_wait", "key_selection "] });
    expect(created.overheadStages).toEqual(["queue_wait", "key_selection"]);
    const { projectId: _p, ...fields } = base;
    // Left out (an older client): the stored list stays; given: it is replaced.
    await caller().target.update({ ...fields, id: created.id });
    expect((await caller().target.byId({ id: created.id })).overheadStages).toEqual(["queue_wait", "key_selection"]);
    await caller().target.update({ ...fields, id: created.id, overheadStages: ["json.marshal-1"] });
    expect((await caller({ role: "viewer" }).target.byId({ id: created.id })).overheadStages).toEqual([
      "json.marshal-1",
    ]);
    await expect(
      caller().target.update({ ...fields, id: created.id, overheadStages: ["bad name"] }),
    ).rejects.toMatchObject({ cause: { issues: [{ path: ["overheadStages", 0] }] } });
    expect((await t.db.target.findUniqueOrThrow({ where: { id: created.id } })).overheadStages).toEqual([
      "json.marshal-1",
    ]);
  });

  it("lets viewers read but not write", async () => {
    await expect(
      caller({ role: "viewer" }).target.create({ projectId, name: "v", kind: "http", baseUrl: "http://127.0.0.1:1" }),
    ).rejects.toMatchObject({ code: "FORBIDDEN" });
  });

  it("does not show or change another organization's targets", async () => {
    const target = await caller().target.create({
      projectId,
      name: "mine",
      kind: "http",
      baseUrl: "http://127.0.0.1:1",
    });
    const other = await t.db.organization.create({ data: { name: "Other", slug: "other-targets" } });
    const outsider = caller({ orgId: other.id });
    await expect(outsider.target.byId({ id: target.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(outsider.target.delete({ id: target.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await outsider.target.list()).toEqual([]);
  });
});

describe("local process monitors", () => {
  it("are the install organization's only: a tenant's target with one is refused on save, naming the field", async () => {
    const tenant = await t.db.organization.create({ data: { name: "Tenant", slug: "tenant-process" } });
    const tenantProject = await t.db.project.create({ data: { orgId: tenant.id, name: "svc", slug: "svc" } });
    const asTenant = caller({ orgId: tenant.id });
    const error = await asTenant.target
      .create({
        projectId: tenantProject.id,
        name: "with a process monitor",
        kind: "http",
        baseUrl: "http://127.0.0.1:1",
        monitors: [{ config: { kind: "process", port: 8080 } }],
      })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "CONFLICT", cause: { field: "monitors.0.config.kind" } });
    expect((error as Error).message).toContain("only the install's own organization");
    expect(await t.db.target.count({ where: { orgId: tenant.id } })).toBe(0);
    // The install's organization keeps them.
    const own = await caller().target.create({
      projectId,
      name: "own process monitor",
      kind: "http",
      baseUrl: "http://127.0.0.1:1",
      monitors: [{ config: { kind: "process", port: 8080 } }],
    });
    expect(own.monitors).toHaveLength(1);
  });

  it("are a tenant's too on an agent-only target, whose runs read the agent's host; taking the label away is refused", async () => {
    const tenant = await t.db.organization.create({ data: { name: "Tenant", slug: "tenant-process-agent" } });
    const tenantProject = await t.db.project.create({ data: { orgId: tenant.id, name: "svc", slug: "svc-agent" } });
    const asTenant = caller({ orgId: tenant.id });
    const fields = {
      name: "watched on the agent",
      kind: "http" as const,
      baseUrl: "http://gateway.internal:8080",
      monitors: [{ config: { kind: "process" as const, port: 8080 } }],
    };
    const saved = await asTenant.target.create({ projectId: tenantProject.id, ...fields, agentLabel: "lab" });
    expect(saved.monitors).toHaveLength(1);
    expect(saved.agentLabel).toBe("lab");
    // Left agent-only, it stays.
    const kept = await asTenant.target.update({ id: saved.id, ...fields });
    expect(kept.monitors).toHaveLength(1);
    // No longer agent-only: its runs could go to the install's workers, so it is refused, unchanged.
    const error = await asTenant.target.update({ id: saved.id, ...fields, agentLabel: null }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "CONFLICT", cause: { field: "monitors.0.config.kind" } });
    expect((error as Error).message).toContain("make the target agent-only");
    expect((await t.db.target.findUniqueOrThrow({ where: { id: saved.id } })).agentLabel).toBe("lab");
  });
});

describe("origin verification", () => {
  it("offers no DNS record for an IP origin and refuses a DNS check of one, naming why", async () => {
    const tenant = await t.db.organization.create({ data: { name: "Tenant", slug: "tenant-verify" } });
    const tenantProject = await t.db.project.create({ data: { orgId: tenant.id, name: "svc", slug: "svc-verify" } });
    const asTenant = caller({ orgId: tenant.id });
    const byIp = await asTenant.target.create({
      projectId: tenantProject.id,
      name: "by address",
      kind: "http",
      baseUrl: "http://127.0.0.1:1",
    });
    const view = await asTenant.target.verification({ targetId: byIp.id });
    expect(view.dns).toBeNull();
    expect(view.http.url).toBe("http://127.0.0.1:1/.well-known/benchboard-verification.txt");
    const error = await asTenant.target.verify({ targetId: byIp.id, method: "dns" }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "CONFLICT", cause: { field: "method" } });
    expect((error as Error).message).toContain("is an IP address");
    expect(await t.db.verifiedOrigin.count({ where: { orgId: tenant.id } })).toBe(0);

    // A host name has a place for the TXT record.
    await t.db.target.update({ where: { id: byIp.id }, data: { baseUrl: "http://svc.example.com:8080" } });
    const named = await asTenant.target.verification({ targetId: byIp.id });
    expect(named.dns?.name).toBe("_benchboard-verification.svc.example.com");
  });
});

describe("test connection", () => {
  it("reads each monitor now, using the stored password without returning it", async () => {
    const target = await caller().target.create({
      projectId,
      name: "monitored",
      kind: "ws_chat",
      baseUrl: "http://127.0.0.1:4200",
      monitors: [
        {
          config: {
            kind: "prometheus",
            url: metricsUrl,
            memoryMetric: "process_resident_memory_bytes",
            cpuMetric: "process_cpu_seconds_total",
            gauges: [],
          },
        },
        rabbit("guest"),
        { config: { kind: "process", port: metricsPort } },
      ],
    });
    const results = await caller().target.testMonitors({ targetId: target.id });
    expect(results.map((r) => [r.kind, r.ok])).toEqual([
      ["prometheus", true],
      ["rabbitmq", true],
      ["process", false],
    ]);
    expect(results[0]?.readings.mem_bytes).toBe(123_456_789);
    // RabbitMQ publishes a new queue's stats a few seconds late: the key is there, the value may not be yet.
    expect(Object.keys(results[1]?.readings ?? {})).toContain(`queue_depth.${queueName}`);
    // This is the web process: its host's processes are not the target's, and are never read here.
    expect(results[2]?.error).toMatch(/only inside a worker/);
    expect(results[2]?.details).toEqual({});
    expect(results[2]?.readings).toEqual({});

    // The unsaved form: a wrong password is reported, and neither password comes back.
    const wrong = await caller().target.testMonitors({
      targetId: target.id,
      monitors: [{ ...rabbit("not-the-password"), id: target.monitors[1]!.id }],
    });
    expect(wrong[0]).toMatchObject({ ok: false, error: "management API refused the credentials (HTTP 401)" });
    expect(JSON.stringify([results, wrong])).not.toContain("not-the-password");
    expect(JSON.stringify([results, wrong])).not.toContain('"guest"');

    // Leaving the password empty on a saved monitor uses the stored one.
    const kept = await caller().target.testMonitors({
      targetId: target.id,
      monitors: [{ ...rabbit(), id: target.monitors[1]!.id }],
    });
    expect(kept[0]?.ok).toBe(true);
  });

  it("refuses to read a cloud metadata address, naming the monitor's URL field", async () => {
    await expect(
      caller().target.testMonitors({
        monitors: [
          { config: { kind: "process", port: metricsPort } },
          {
            config: {
              kind: "prometheus",
              url: "http://169.254.169.254/latest",
              memoryMetric: "m",
              cpuMetric: "c",
              gauges: [],
            },
          },
        ],
      }),
    ).rejects.toMatchObject({ code: "CONFLICT", cause: { field: "monitors.1.config.url" } });
  });

  it("reports an unreachable endpoint as a reading failure, not an error of the call", async () => {
    const [result] = await caller().target.testMonitors({
      monitors: [
        {
          config: {
            kind: "prometheus",
            url: "http://127.0.0.1:1/metrics",
            memoryMetric: "m",
            cpuMetric: "c",
            gauges: [],
          },
        },
      ],
    });
    expect(result).toMatchObject({ ok: false, error: expect.stringMatching(/unreachable/) });
  });
});

describe("deleting a target", () => {
  it("cancels its queued runs and keeps finished ones with their snapshot", async () => {
    const target = await caller().target.create({
      projectId,
      name: "doomed",
      kind: "http",
      baseUrl: "http://127.0.0.1:1",
    });
    const scenario = await caller().scenario.create({
      projectId,
      name: "doomed-s",
      spec: { engine: "http-closed", concurrency: 1, requests: 1 },
    });
    const queued = await caller().run.launch({ targetId: target.id, scenarioId: scenario.id });
    await t.db.run.update({ where: { id: queued.id }, data: { status: "succeeded" } });
    const waiting = await caller().run.launch({ targetId: target.id, scenarioId: scenario.id });
    const res = await caller().target.delete({ id: target.id });
    expect(res.canceledRuns).toBe(1);
    const after = await t.db.run.findMany({
      where: { id: { in: [queued.id, waiting.id] } },
      orderBy: { number: "asc" },
    });
    expect(after.map((r) => [r.status, r.targetId])).toEqual([
      ["succeeded", null],
      ["canceled", null],
    ]);
    expect((after[0]?.targetSnapshot as { name: string }).name).toBe("doomed");
    await queue.remove(queued.id);
    await queue.remove(waiting.id);
  });
});
