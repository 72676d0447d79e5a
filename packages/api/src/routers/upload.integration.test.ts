import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createProject } from "@benchboard/db";
import { createTestDatabase, type TestDatabase } from "@benchboard/db/testing";
import { createRunsQueue, DEFAULT_REDIS_URL } from "@benchboard/jobs";
import { TRPCError } from "@trpc/server";
import type { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCaller } from "../root";
import type { Role } from "../trpc";
import { runTimes } from "./upload";

// upload.run as the web page calls it, with a signed-in user's role, against real PostgreSQL.
const FIXTURES = fileURLToPath(new URL("../../../core/src/importers/fixtures/", import.meta.url));

let t: TestDatabase;
let queue: Queue;
let orgId = "";
let userId = "";
let projectId = "";

beforeAll(async () => {
  t = await createTestDatabase();
  queue = createRunsQueue(process.env.REDIS_URL ?? DEFAULT_REDIS_URL, `bbupload-${randomBytes(4).toString("hex")}`);
  orgId = (await t.db.organization.create({ data: { name: "Acme", slug: "acme" } })).id;
  userId = (await t.db.user.create({ data: { email: "uma@example.com" } })).id;
  projectId = (await createProject(t.db, orgId, { name: "Examples" })).id;
});
afterAll(async () => {
  await queue.close();
  await t.drop();
});

const as = (role: Role) => createCaller({ db: t.db, queue, orgId, userId, role });

describe("upload.run", () => {
  it("stores the run as the signed-in member's", async () => {
    const stored = await as("member").upload.run({
      project: projectId,
      format: "ab",
      content: readFileSync(`${FIXTURES}ab/basic.txt`, "utf8"),
      tags: ["manual"],
    });
    expect(stored).toMatchObject({ created: true, status: "succeeded", source: "import:ab", number: 1 });
    const run = await t.db.run.findUniqueOrThrow({ where: { id: stored.id } });
    expect(run).toMatchObject({ createdById: userId, scenarioName: "ab", tags: ["manual"] });
  });

  it("is refused to viewers, storing nothing", async () => {
    const before = await t.db.run.count();
    const error = await as("viewer")
      .upload.run({ project: projectId, content: readFileSync(`${FIXTURES}ab/basic.txt`, "utf8") })
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(TRPCError);
    expect((error as TRPCError).code).toBe("FORBIDDEN");
    expect(await t.db.run.count()).toBe(before);
  });

  it("reports an import error as a bad request carrying the line", async () => {
    const error = await as("member")
      .upload.run({ project: projectId, format: "hey", content: "Summary:\n  Total: nonsense\n" })
      .catch((err: unknown) => err);
    expect((error as TRPCError).code).toBe("BAD_REQUEST");
    expect((error as TRPCError).message).toMatch(/^hey output, line \d+: /);
  });
});

describe("runTimes", () => {
  const base = {
    schemaVersion: 1 as const,
    result: { metrics: {}, statusCounts: {}, errors: [], stages: {}, valid: true, invalidReasons: [], series: {} },
  };
  it("fills the missing end from the start and the duration, and the other way round", () => {
    expect(runTimes({ ...base, startedAt: "2026-01-01T00:00:00Z", durationS: 90 })).toEqual({
      startedAt: new Date("2026-01-01T00:00:00Z"),
      endedAt: new Date("2026-01-01T00:01:30Z"),
    });
    expect(runTimes({ ...base, endedAt: "2026-01-01T00:01:30Z", durationS: 90 }).startedAt).toEqual(
      new Date("2026-01-01T00:00:00Z"),
    );
    expect(runTimes({ ...base, durationS: 90 })).toEqual({ startedAt: null, endedAt: null });
  });
});
