import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { deflateSync } from "node:zlib";
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

  it("stores real ab output with its ERROR blocks, keeping them as the run's notes after the uploader's", async () => {
    const stored = await as("member").upload.run({
      project: projectId,
      format: "ab",
      content: readFileSync(`${FIXTURES}ab/unreliable-error.txt`, "utf8"),
      notes: "nightly on the staging box",
    });
    const run = await t.db.run.findUniqueOrThrow({ where: { id: stored.id } });
    expect(run.notes.split("\n")).toEqual([
      "nightly on the staging box",
      "",
      "ab: ERROR: The median and mean for the processing time are more than twice the standard deviation apart. These results are NOT reliable.",
      "ab: ERROR: The median and mean for the waiting time are more than twice the standard deviation apart. These results are NOT reliable.",
      "ab: ERROR: The median and mean for the total time are more than twice the standard deviation apart. These results are NOT reliable.",
    ]);
  });

  it("stores hey 0.1.5 output with its percentiles", async () => {
    const stored = await as("member").upload.run({
      project: projectId,
      content: readFileSync(`${FIXTURES}hey-0.1.5/mixed.txt`, "utf8"),
    });
    expect(stored).toMatchObject({ created: true, source: "import:hey" });
    const result = await t.db.runResult.findUniqueOrThrow({ where: { runId: stored.id } });
    expect(result.metrics).toMatchObject({ requests: 2000, latency_p50: 0.6, latency_p99: 8.5 });
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

describe("upload.run with hostile content", () => {
  const native = (result: Record<string, unknown>) =>
    JSON.stringify({
      schemaVersion: 1,
      startedAt: "2026-01-01T00:00:00Z",
      endedAt: "2026-01-01T00:01:00Z",
      result: { metrics: { requests: 1 }, ...result },
    });

  async function refusal(content: string): Promise<TRPCError> {
    const before = await t.db.run.count();
    const error = await as("member")
      .upload.run({ project: projectId, format: "native", content })
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(TRPCError);
    expect(await t.db.run.count()).toBe(before);
    return error as TRPCError;
  }

  it("refuses a series with a sub-millisecond interval, naming the field and storing nothing", async () => {
    const error = await refusal(
      native({ series: { rps: { start: Date.parse("2026-01-01T00:00:00Z"), intervalMs: 1e-9, values: [1] } } }),
    );
    expect(error.code).toBe("BAD_REQUEST");
    expect(error.message).toMatch(/field "result\.series\.rps\.intervalMs": must be at least 1 ms/);
  });

  it("refuses a series that starts outside the run", async () => {
    const error = await refusal(native({ series: { rps: { start: 0, intervalMs: 1000, values: [1] } } }));
    expect(error.message).toMatch(/result\.series\.rps\.start/);
  });

  it("refuses a histogram that inflates without bound, storing nothing", async () => {
    const payload = Buffer.alloc(20_000_000);
    const head = Buffer.alloc(40);
    head.writeInt32BE(0x1c849313, 0);
    head.writeInt32BE(payload.length, 4);
    head.writeInt32BE(3, 12);
    head.writeBigInt64BE(1n, 16);
    head.writeBigInt64BE(3_600_000_000n, 24);
    const body = deflateSync(Buffer.concat([head, payload]), { level: 9 });
    const wrapper = Buffer.alloc(8);
    wrapper.writeInt32BE(0x1c849314, 0);
    wrapper.writeInt32BE(body.length, 4);
    const error = await refusal(native({ histogram: Buffer.concat([wrapper, body]).toString("base64") }));
    expect(error.message).toMatch(/field "result\.histogram": the histogram inflates to more than/);
  });
});

describe("runTimes", () => {
  const base = {
    schemaVersion: 1 as const,
    result: {
      metrics: {},
      statusCounts: {},
      errors: [],
      stages: {},
      valid: true,
      invalidReasons: [],
      saturationReasons: [],
      series: {},
    },
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
