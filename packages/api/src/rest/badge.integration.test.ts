import { randomBytes } from "node:crypto";
import { createShareLink, ensureLocalOrganization, revokeShareLink, setProjectThresholds } from "@benchboard/db";
import { createTestDatabase, type TestDatabase } from "@benchboard/db/testing";
import { createRunsQueue, DEFAULT_REDIS_URL } from "@benchboard/jobs";
import type { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCaller } from "../root";
import { badgeHandler } from "./badge";

// Status badges against real PostgreSQL: public only when the owners say so (or through a live
// share link of the project), the default branch's latest run, colored by its thresholds.
let t: TestDatabase;
let queue: Queue;
let owner: ReturnType<typeof createCaller>;
let projectId = "";
let mainRunId = "";
let orgId = "";

beforeAll(async () => {
  t = await createTestDatabase();
  queue = createRunsQueue(process.env.REDIS_URL ?? DEFAULT_REDIS_URL, `bbbadge-${randomBytes(4).toString("hex")}`);
  orgId = (await ensureLocalOrganization(t.db)).id;
  owner = createCaller({ db: t.db, queue, orgId, userId: null, role: "owner" });
  projectId = (await owner.project.create({ name: "Gateway" })).id;
  await setProjectThresholds(t.db, orgId, projectId, [{ metric: "latency_p99", op: "<=", value: 50 }]);
  const upload = (branch: string, p99: number) =>
    owner.upload.run({
      project: projectId,
      scenario: "chat <5k>",
      format: "native",
      branch,
      content: JSON.stringify({
        schemaVersion: 1,
        startedAt: "2026-11-26T06:00:00Z",
        endedAt: "2026-11-26T06:01:00Z",
        result: { metrics: { requests: 100, success: 100, failed: 0, rps: 5000, latency_p99: p99 } },
      }),
    });
  mainRunId = (await upload("main", 42)).id;
  // A later run on another branch is not what the badge shows.
  await upload("feature", 90);
});

afterAll(async () => {
  await queue?.obliterate({ force: true }).catch(() => {});
  await queue?.close();
  await t?.drop();
});

const badge = (metric: string, token?: string) =>
  badgeHandler(
    { url: `http://127.0.0.1/api/v1/badge/x/y/${metric}.svg${token ? `?token=${token}` : ""}` },
    { db: t.db },
    { project: projectId, scenario: "chat <5k>", metric: `${metric}.svg` },
  );

describe("status badges", () => {
  it("are 404 until the owners make them public, then show the default branch's latest value and verdict", async () => {
    const hidden = await badge("latency_p99");
    expect(hidden.status).toBe(404);
    expect(hidden.svg).not.toContain("42");
    const member = createCaller({ db: t.db, queue, orgId, userId: null, role: "member" });
    await expect(member.project.setBadges({ id: projectId, badgesPublic: true })).rejects.toThrow(/owner/);
    await owner.project.setBadges({ id: projectId, badgesPublic: true });

    const shown = await badge("latency_p99");
    expect(shown.status).toBe(200);
    expect(shown.headers["content-type"]).toMatch(/^image\/svg\+xml/);
    expect(shown.headers["cache-control"]).toMatch(/^public, max-age=300/);
    expect(shown.svg).toContain("42 ms · passing");
    expect(shown.svg).toContain("#2e7d32");
    // The scenario name is escaped, not markup.
    expect(shown.svg).toContain("chat &#60;5k&#62;");
    expect(shown.svg).not.toContain("<5k>");
    const rate = await badge("rps");
    expect(rate.svg).toContain("5,000 req/s");
    expect((await badge("not_a_metric")).status).toBe(400);

    // On a default branch that fails its threshold the badge is red.
    await owner.project.setBadges({ id: projectId, badgesPublic: true, defaultBranch: "feature" });
    const failing = await badge("latency_p99");
    expect(failing.svg).toContain("90 ms · failing");
    expect(failing.svg).toContain("#c62828");
    await owner.project.setBadges({ id: projectId, badgesPublic: false, defaultBranch: "main" });
    expect((await badge("latency_p99")).status).toBe(404);
  });

  it("a live share link of one of the project's runs shows a private badge; revoked, it does not", async () => {
    const link = await createShareLink(t.db, orgId, { runId: mainRunId });
    const shared = await badge("latency_p99", link.token);
    expect(shared.status).toBe(200);
    expect(shared.headers["cache-control"]).toMatch(/^private/);
    expect((await badge("latency_p99", `${link.token.slice(0, -2)}xx`)).status).toBe(404);
    await revokeShareLink(t.db, orgId, link.id);
    expect((await badge("latency_p99", link.token)).status).toBe(404);
  });
});
