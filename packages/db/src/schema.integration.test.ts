import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "./generated/prisma/client";
import { applyMigrations, readMigrations } from "./migrate";
import { createTestDatabase, type TestDatabase } from "./testing";

// Proves that the migrations produce the database the Prisma schema describes: every model is
// written with every field set to a non-default value and read back unchanged.
let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t?.drop();
});

describe("migrated database matches the Prisma schema", () => {
  it("re-applying migrations is a no-op and checksums are Prisma's", async () => {
    const { applied } = await applyMigrations(t.url);
    expect(applied).toEqual([]);
    const rows = await t.db.$queryRaw<{ migration_name: string; checksum: string }[]>`
      SELECT migration_name, checksum FROM "_prisma_migrations" ORDER BY migration_name`;
    const files = await readMigrations();
    expect(rows.map((r) => [r.migration_name, r.checksum])).toEqual(files.map((m) => [m.name, m.checksum]));
  });

  it("writes and reads every model", async () => {
    const db = t.db;
    const covered = new Set<string>();
    const roundTrip = async <T extends Record<string, unknown>>(
      model: string,
      created: T,
      read: () => Promise<unknown>,
    ) => {
      covered.add(model);
      expect(await read(), model).toEqual(created);
    };
    const at = new Date("2026-01-02T03:04:05.678Z");

    const org = await db.organization.create({
      data: {
        name: "Acme ✓",
        slug: "acme",
        caps: { maxRate: 5000 },
        demo: true,
        verificationToken: "tok-1",
        createdAt: at,
      },
    });
    await roundTrip("Organization", org, () => db.organization.findUnique({ where: { id: org.id } }));
    const user = await db.user.create({ data: { email: "a@example.com", name: "Ann", passwordHash: "scrypt$x" } });
    await roundTrip("User", user, () => db.user.findUnique({ where: { id: user.id } }));
    const membership = await db.membership.create({ data: { orgId: org.id, userId: user.id, role: "viewer" } });
    await roundTrip("Membership", membership, () => db.membership.findUnique({ where: { id: membership.id } }));
    const invitation = await db.invitation.create({
      data: {
        orgId: org.id,
        email: "b@example.com",
        role: "member",
        tokenHash: "h1",
        invitedById: user.id,
        expiresAt: at,
        acceptedAt: at,
      },
    });
    await roundTrip("Invitation", invitation, () => db.invitation.findUnique({ where: { id: invitation.id } }));
    const session = await db.session.create({
      data: { tokenHash: "s1", userId: user.id, expiresAt: at, userAgent: "ua" },
    });
    await roundTrip("Session", session, () => db.session.findUnique({ where: { id: session.id } }));
    const reset = await db.passwordReset.create({
      data: { tokenHash: "r1", userId: user.id, expiresAt: at, usedAt: at, supersededAt: at },
    });
    await roundTrip("PasswordReset", reset, () => db.passwordReset.findUnique({ where: { id: reset.id } }));
    const pendingSignUp = await db.signUpConfirmation.create({
      data: {
        tokenHash: "c1",
        email: "new@example.test",
        name: "N",
        passwordHash: "scrypt$x",
        expiresAt: at,
        usedAt: at,
      },
    });
    await roundTrip("SignUpConfirmation", pendingSignUp, () =>
      db.signUpConfirmation.findUnique({ where: { id: pendingSignUp.id } }),
    );
    const project = await db.project.create({
      data: {
        orgId: org.id,
        name: "Gateway",
        slug: "gateway",
        description: "d",
        thresholds: [{ metric: "failed", op: "==", value: 0 }],
        runCounter: 7,
      },
    });
    await roundTrip("Project", project, () => db.project.findUnique({ where: { id: project.id } }));
    const token = await db.apiToken.create({
      data: {
        orgId: org.id,
        projectId: project.id,
        name: "ci",
        tokenHash: "t1",
        prefix: "bb_ab",
        scopes: ["runs:write"],
        createdById: user.id,
        lastUsedAt: at,
        expiresAt: at,
        revokedAt: at,
      },
    });
    await roundTrip("ApiToken", token, () => db.apiToken.findUnique({ where: { id: token.id } }));
    expect(token.kind).toBe("api");
    const agentToken = await db.apiToken.create({
      data: { orgId: org.id, name: "lab", tokenHash: "t2", prefix: "bba_ab", scopes: [], kind: "agent" },
    });
    const agent = await db.agent.create({
      data: {
        orgId: org.id,
        tokenId: agentToken.id,
        name: "lab-1",
        labels: ["lab", "eu"],
        capacity: 2,
        activeRuns: 1,
        version: "0.1.0",
        startedAt: at,
        lastSeenAt: at,
        stoppedAt: at,
      },
    });
    await roundTrip("Agent", agent, () => db.agent.findUnique({ where: { id: agent.id } }));
    const target = await db.target.create({
      data: {
        orgId: org.id,
        projectId: project.id,
        name: "gw",
        kind: "ws_chat",
        baseUrl: "http://127.0.0.1:1",
        headers: [{ name: "x", value: "y" }],
        secrets: "enc",
        monitors: [{ kind: "process", port: 1 }],
        configApplyUrl: "http://127.0.0.1:1/admin/config",
        baselineKnobs: { buffer_size: 1000 },
        overheadStages: ["queue_wait", "key_selection"],
        agentLabel: "lab",
      },
    });
    await roundTrip("Target", target, () => db.target.findUnique({ where: { id: target.id } }));
    expect(target.overheadStages).toEqual(["queue_wait", "key_selection"]);
    // A target written without overhead stages (as every row before the column) has none.
    await db.$executeRaw`INSERT INTO "Target" ("id", "orgId", "projectId", "name", "kind", "baseUrl", "updatedAt")
      VALUES ('t-no-stages', ${org.id}, ${project.id}, 'plain', 'http', 'http://127.0.0.1:2', now())`;
    expect((await db.target.findUniqueOrThrow({ where: { id: "t-no-stages" } })).overheadStages).toEqual([]);
    const base = await db.instanceConfig.create({ data: { orgId: org.id, projectId: project.id, name: "base" } });
    const config = await db.instanceConfig.create({
      data: {
        orgId: org.id,
        projectId: project.id,
        name: "t3.medium",
        instanceType: "t3.medium",
        vcpu: 2,
        memoryMb: 4096,
        cpuLimit: 1.5,
        replicas: 3,
        knobs: { buffer_size: 15000 },
        clonedFromId: base.id,
      },
    });
    await roundTrip("InstanceConfig", config, () => db.instanceConfig.findUnique({ where: { id: config.id } }));
    const scenario = await db.scenario.create({
      data: {
        orgId: org.id,
        projectId: project.id,
        name: "5k",
        engine: "http-open",
        spec: { engine: "http-open", rate: 5000 },
        thresholds: [],
        description: "x",
      },
    });
    await roundTrip("Scenario", scenario, () => db.scenario.findUnique({ where: { id: scenario.id } }));
    const sweep = await db.sweep.create({
      data: {
        orgId: org.id,
        projectId: project.id,
        name: "pool",
        scenarioId: scenario.id,
        targetId: target.id,
        instanceConfigId: config.id,
        parameter: "knobs.initial_pool_size",
        values: [16, 1000],
        parameter2: "knobs.buffer_size",
        values2: [1, 2],
        metric: "queue_depth_peak",
        repetitions: 2,
        status: "succeeded",
        createdById: user.id,
      },
    });
    await roundTrip("Sweep", sweep, () => db.sweep.findUnique({ where: { id: sweep.id } }));
    const run = await db.run.create({
      data: {
        orgId: org.id,
        projectId: project.id,
        number: 18,
        targetId: target.id,
        instanceConfigId: config.id,
        scenarioId: scenario.id,
        sweepId: sweep.id,
        sweepValue: 16,
        status: "failed",
        source: "import:k6",
        targetSnapshot: { a: 1 },
        configSnapshot: { b: 2 },
        scenarioSnapshot: { c: 3 },
        scenarioName: "5k",
        branch: "main",
        commit: "abc",
        ciUrl: "https://ci.example/1",
        tags: ["x", "y"],
        notes: "n",
        excluded: true,
        excludedReason: "anomalous",
        error: "boom",
        progress: { fraction: 0.5 },
        shardCount: 2,
        workerLabel: "eu",
        agentLabel: "lab",
        dispatchedAt: new Date("2026-01-02T00:00:00Z"),
        serverConfig: { buffer_size: 1000 },
        workerIds: ["w1"],
        idempotencyKey: "k1",
        createdById: user.id,
        queuedAt: at,
        startedAt: at,
        endedAt: at,
        heartbeatAt: at,
        cancelRequested: true,
      },
    });
    await roundTrip("Run", run, () => db.run.findUnique({ where: { id: run.id } }));
    const result = await db.runResult.create({
      data: {
        runId: run.id,
        metrics: { rps: 4999.5, latency_p50: 50.3 },
        histogram: "HISTFAAA",
        statusCounts: { "200": 10 },
        errors: [{ kind: "status", count: 1 }],
        stages: { queue_wait: { meanMs: 0.001 } },
        valid: false,
        invalidReasons: ["behind schedule"],
        thresholdResults: [{ passed: false }],
        extra: { vus: 10 },
      },
    });
    await roundTrip("RunResult", result, () => db.runResult.findUnique({ where: { runId: run.id } }));
    // The result's trigger wrote its metric rows; one more written directly round-trips too.
    expect(
      await db.runMetric.findMany({
        where: { runId: run.id },
        orderBy: { key: "asc" },
        select: { key: true, value: true },
      }),
    ).toEqual([
      { key: "latency_p50", value: 50.3 },
      { key: "rps", value: 4999.5 },
    ]);
    const metricRow = await db.runMetric.create({
      data: { runId: run.id, orgId: org.id, key: "custom.gauge", value: -2.5e-7, runCreatedAt: run.createdAt },
    });
    await roundTrip("RunMetric", metricRow, () =>
      db.runMetric.findUnique({ where: { runId_key: { runId: run.id, key: "custom.gauge" } } }),
    );
    const series = await db.series.create({
      data: { runId: run.id, metric: "rps", start: at, intervalMs: 500, values: [1, null, 2.5] },
    });
    await roundTrip("Series", series, () => db.series.findUnique({ where: { id: series.id } }));
    const shard = await db.runShard.create({
      data: {
        runId: run.id,
        index: 1,
        status: "running",
        workerId: "w1",
        result: { metrics: {} },
        error: "e",
        startedAt: at,
        endedAt: at,
      },
    });
    await roundTrip("RunShard", shard, () => db.runShard.findUnique({ where: { id: shard.id } }));
    const worker = await db.worker.create({
      data: { id: "w1", host: "h", pid: 42, labels: ["eu"], capacity: 4, activeJobs: 1, version: "1" },
    });
    await roundTrip("Worker", worker, () => db.worker.findUnique({ where: { id: "w1" } }));
    const install = await db.installSettings.create({
      data: {
        allowedTargets: ["127.0.0.1/32", "db.internal:5432"],
        allowedTargetsSet: true,
        signupOpen: false,
        defaultCaps: { maxRate: 500 },
        updatedById: user.id,
      },
    });
    await roundTrip("InstallSettings", install, () => db.installSettings.findUnique({ where: { id: 1 } }));
    const verified = await db.verifiedOrigin.create({
      data: { orgId: org.id, origin: "https://api.example.com:443", method: "dns", verifiedAt: at },
    });
    await roundTrip("VerifiedOrigin", verified, () => db.verifiedOrigin.findUnique({ where: { id: verified.id } }));
    const comparison = await db.comparison.create({
      data: {
        orgId: org.id,
        projectId: project.id,
        title: "t",
        runIds: [run.id],
        baselineRunId: run.id,
        metrics: ["rps"],
        notes: "n",
        createdById: user.id,
      },
    });
    await roundTrip("Comparison", comparison, () => db.comparison.findUnique({ where: { id: comparison.id } }));
    const link = await db.shareLink.create({
      data: {
        orgId: org.id,
        tokenHash: "0".repeat(64),
        includeTarget: true,
        runId: run.id,
        comparisonId: comparison.id,
        createdById: user.id,
        expiresAt: at,
        revokedAt: at,
        lastViewedAt: at,
      },
    });
    await roundTrip("ShareLink", link, () => db.shareLink.findUnique({ where: { id: link.id } }));

    // Notifications, and the columns they added to projects and runs.
    await db.project.update({ where: { id: project.id }, data: { badgesPublic: true, defaultBranch: "trunk" } });
    await db.run.update({ where: { id: run.id }, data: { notifiedAt: at } });
    expect(
      await db.project.findUnique({ where: { id: project.id }, select: { badgesPublic: true, defaultBranch: true } }),
    ).toEqual({
      badgesPublic: true,
      defaultBranch: "trunk",
    });
    expect((await db.run.findUniqueOrThrow({ where: { id: run.id } })).notifiedAt).toEqual(at);
    const endpoint = await db.notificationEndpoint.create({
      data: {
        orgId: org.id,
        name: "hook",
        channel: "teams",
        urlEnc: "v1.a.b.c",
        urlOrigin: "https://hooks.example.com:443",
        secretEnc: "v1.s",
        previousSecretEnc: "v1.p",
        previousSecretUntil: at,
        enabled: false,
        consecutiveFailures: 3,
        disabledAt: at,
        disabledReason: "r",
        createdById: user.id,
      },
    });
    await roundTrip("NotificationEndpoint", endpoint, () =>
      db.notificationEndpoint.findUnique({ where: { id: endpoint.id } }),
    );
    const rule = await db.notificationRule.create({
      data: {
        orgId: org.id,
        name: "rule",
        events: ["run.failed", "regression.detected"],
        projectId: project.id,
        scenarioId: scenario.id,
        baselineBranch: "trunk",
        tolerancePct: 2.5,
        enabled: false,
      },
    });
    await roundTrip("NotificationRule", rule, () => db.notificationRule.findUnique({ where: { id: rule.id } }));
    const ruleEndpoint = await db.notificationRuleEndpoint.create({
      data: { ruleId: rule.id, endpointId: endpoint.id },
    });
    await roundTrip("NotificationRuleEndpoint", ruleEndpoint, () =>
      db.notificationRuleEndpoint.findUnique({
        where: { ruleId_endpointId: { ruleId: rule.id, endpointId: endpoint.id } },
      }),
    );
    const event = await db.notificationEvent.create({
      data: {
        id: "evt_1",
        orgId: org.id,
        kind: "run.failed",
        dedupeKey: "run.failed:r1",
        payload: { title: "t" },
        createdAt: at,
      },
    });
    await roundTrip("NotificationEvent", event, () => db.notificationEvent.findUnique({ where: { id: "evt_1" } }));
    await expect(
      db.notificationEvent.create({
        data: { id: "evt_2", orgId: org.id, kind: "run.failed", dedupeKey: "run.failed:r1", payload: {} },
      }),
    ).rejects.toThrow();
    const delivery = await db.notificationDelivery.create({
      data: {
        orgId: org.id,
        eventId: event.id,
        endpointId: endpoint.id,
        status: "failed",
        attempts: 5,
        lastStatus: 503,
        lastError: "HTTP 503, 12 bytes",
        nextAttemptAt: at,
        deliveredAt: at,
      },
    });
    await roundTrip("NotificationDelivery", delivery, () =>
      db.notificationDelivery.findUnique({ where: { id: delivery.id } }),
    );
    // At most one delivery per event and endpoint.
    await expect(
      db.notificationDelivery.create({ data: { orgId: org.id, eventId: event.id, endpointId: endpoint.id } }),
    ).rejects.toThrow();
    const attempt = await db.notificationDeliveryAttempt.create({
      data: {
        orgId: org.id,
        deliveryId: delivery.id,
        attempt: 1,
        outcome: "retry",
        status: 503,
        error: "HTTP 503, 12 bytes",
        durationMs: 41,
        createdAt: at,
      },
    });
    await roundTrip("NotificationDeliveryAttempt", attempt, () =>
      db.notificationDeliveryAttempt.findUnique({ where: { id: attempt.id } }),
    );
    const notice = await db.orgNotice.create({
      data: { orgId: org.id, kind: "notification.endpoint_disabled", message: "m", createdAt: at, readAt: at },
    });
    await roundTrip("OrgNotice", notice, () => db.orgNotice.findUnique({ where: { id: notice.id } }));

    expect([...covered].sort()).toEqual(Object.values(Prisma.ModelName).sort());
  });

  it("enforces the unique and foreign keys the schema declares", async () => {
    const db = t.db;
    const org = await db.organization.create({ data: { name: "U", slug: "u" } });
    await expect(db.organization.create({ data: { name: "U2", slug: "u" } })).rejects.toThrow();
    await expect(db.project.create({ data: { orgId: "missing", name: "p", slug: "p" } })).rejects.toThrow();
    const p = await db.project.create({ data: { orgId: org.id, name: "p", slug: "p" } });
    await db.run.create({ data: { orgId: org.id, projectId: p.id, number: 1 } });
    await expect(db.run.create({ data: { orgId: org.id, projectId: p.id, number: 1 } })).rejects.toThrow();
    // Deleting the organization removes everything below it.
    await db.organization.delete({ where: { id: org.id } });
    expect(await db.run.count({ where: { orgId: org.id } })).toBe(0);
  });
});
