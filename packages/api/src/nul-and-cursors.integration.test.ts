import { randomBytes } from "node:crypto";
import { createProject } from "@benchboard/db";
import { createTestDatabase, type TestDatabase } from "@benchboard/db/testing";
import { createRunsQueue, DEFAULT_REDIS_URL } from "@benchboard/jobs";
import type { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCaller } from "./root";

// Input PostgreSQL cannot take (a NUL character) or a page cursor that decodes to a value SQL
// cannot take is a 400/409 naming the field, never a 500 carrying database error text.
let t: TestDatabase;
let queue: Queue;
let caller: ReturnType<typeof createCaller>;
let projectId = "";

beforeAll(async () => {
  t = await createTestDatabase();
  queue = createRunsQueue(process.env.REDIS_URL ?? DEFAULT_REDIS_URL, `bbnul-${randomBytes(4).toString("hex")}`);
  const org = await t.db.organization.create({
    data: { name: "Acme", slug: `acme-${randomBytes(3).toString("hex")}` },
  });
  projectId = (await createProject(t.db, org.id, { name: "p" })).id;
  caller = createCaller({ db: t.db, queue, orgId: org.id, userId: null, role: "owner" });
});

afterAll(async () => {
  await queue?.obliterate({ force: true }).catch(() => {});
  await queue?.close();
  await t?.drop();
});

const cursor = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

describe("hostile input", () => {
  it("refuses a NUL character in an id, a name or a nested field with a 400 naming it", async () => {
    for (const call of [
      () => caller.run.byId({ id: "abc\u0000def" }),
      () => caller.project.create({ name: "p\u0000" }),
      () => caller.instanceConfig.create({ projectId, name: "c", knobs: { mode: "a\u0000" } }),
    ]) {
      const err = await call().catch((e) => e);
      expect(err).toMatchObject({ code: "BAD_REQUEST", message: expect.stringContaining("NUL character") });
      expect(String(err.message)).not.toMatch(/prisma|invalid byte sequence|22021/i);
    }
  });

  it("refuses a page cursor whose value SQL cannot take, naming the cursor", async () => {
    for (const bad of [
      cursor({ v: "1e999", id: "x" }),
      cursor({ v: 1, id: "a\u0000" }),
      cursor({ v: "2026-01-01T00:00:00Z", id: "'; drop" }),
    ]) {
      for (const sort of ["newest", "rps"] as const) {
        const err = await caller.run.list({ projectId, sort, cursor: bad }).catch((e) => e);
        expect(err, `${sort} ${bad}`).toMatchObject({ code: "CONFLICT", cause: { field: "cursor" } });
      }
    }
  });
});
