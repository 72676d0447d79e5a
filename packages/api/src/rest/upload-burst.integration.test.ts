import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { TestDatabase } from "@benchboard/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUploadingOrg, startTestServices, type TestServices } from "../testing/services";
import type { RestDeps } from "./auth";
import type { RestResponse } from "./http";
import { uploadRunHandler } from "./runs";

// Upload bursts through POST /api/v1/runs against real PostgreSQL, Redis and the process's parse
// pool (real threads): one organization's burst of large uploads must not hold up another's
// small one, refusals are 503 with Retry-After, and retried uploads are stored exactly once.
const FIXTURES = fileURLToPath(new URL("../../../core/src/importers/fixtures/", import.meta.url));
const fixture = (path: string) => readFileSync(`${FIXTURES}${path}`, "utf8");

let t: TestDatabase;
let services: TestServices;
let deps: RestDeps;
const prefix = `bbburst-${randomBytes(4).toString("hex")}`;
const orgs: { id: string; token: string; project: string }[] = [];

beforeAll(async () => {
  services = await startTestServices(prefix);
  ({ t } = services);
  deps = services.restDeps({ requestsPerWindow: 10_000 });
  for (let i = 0; i < 4; i++) orgs.push(await createUploadingOrg(t.db, `Org ${i}`, `org-${i}`));
});

afterAll(async () => {
  await services?.close();
});

function upload(org: (typeof orgs)[number], body: string, format: string, key?: string): Promise<RestResponse> {
  const headers: Record<string, string> = { authorization: `Bearer ${org.token}`, "content-type": "text/plain" };
  if (key) headers["idempotency-key"] = key;
  const url = `http://bench.test/api/v1/runs?project=${org.project}&format=${format}`;
  return uploadRunHandler(new Request(url, { method: "POST", headers, body }), deps);
}

describe("upload bursts", () => {
  it("twelve 9.9 MB blank-line uploads from one organization do not hold up another's 90-byte upload", async () => {
    const [a, b] = [orgs[0]!, orgs[1]!];
    const blank = "\n".repeat(9_900_000);
    const tiny = "Running 1s test @ http://h/\n  9 requests in 1.00s, 1KB read\nRequests/sec: 9.00\n";
    expect(tiny.length).toBeLessThanOrEqual(90);

    const settled: { status: number; retryAfter?: string }[] = [];
    const burst = Array.from({ length: 12 }, () =>
      upload(a, blank, "auto").then((res) => {
        settled.push({ status: res.status, retryAfter: res.headers?.["retry-after"] });
        return res;
      }),
    );
    // While the burst is being read, the other organization's upload is answered.
    const answered = await upload(b, tiny, "wrk");
    const readBefore = settled.filter((s) => s.status !== 503);
    const all = await Promise.all(burst);
    expect(answered.status, JSON.stringify(answered.body)).toBe(201);
    expect(readBefore, "none of the burst's accepted uploads was read before org B's").toEqual([]);
    const statuses = all.map((r) => r.status);
    // Blank lines are not a report (400); what exceeds the organization's share is refused (503).
    expect(
      statuses.every((s) => s === 400 || s === 503),
      `statuses ${statuses.join(",")}`,
    ).toBe(true);
    expect(statuses.filter((s) => s === 400).length).toBeGreaterThan(0);
    for (const s of settled.filter((x) => x.status === 503)) expect(Number(s.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(await t.db.run.count({ where: { orgId: a.id } })).toBe(0);
  }, 600_000);

  it("200 uploads in flight from four organizations: only 503s refuse, each stored once", async () => {
    const k6 = fixture("k6/summary-export.json");
    const wrk = fixture("wrk/latency.txt");
    const jobs = Array.from({ length: 200 }, (_, i) => ({
      org: orgs[i % 4]!,
      key: `burst-${i}`,
      format: i % 2 === 0 ? "k6" : "wrk",
      body: i % 2 === 0 ? k6 : wrk,
    }));
    const statuses: number[] = [];
    const runIds = new Map<string, string>();
    let refusals = 0;
    await Promise.all(
      jobs.map(async (job) => {
        for (let attempt = 0; attempt < 30; attempt++) {
          const res = await upload(job.org, job.body, job.format, job.key);
          statuses.push(res.status);
          if (res.status === 503) {
            refusals++;
            const wait = Number(res.headers?.["retry-after"]);
            expect(wait).toBeGreaterThanOrEqual(1);
            await new Promise((r) => setTimeout(r, wait * 1000));
            continue;
          }
          expect([200, 201], JSON.stringify(res.body)).toContain(res.status);
          runIds.set(job.key, (res.body as { run: { id: string } }).run.id);
          return;
        }
        throw new Error(`${job.key} was never taken`);
      }),
    );
    expect(statuses.filter((s) => s >= 500 && s !== 503)).toEqual([]);
    expect(runIds.size).toBe(200);
    expect(new Set(runIds.values()).size).toBe(200);
    for (const org of orgs) {
      const stored = await t.db.run.findMany({
        where: { orgId: org.id, idempotencyKey: { startsWith: "burst-" } },
        select: { idempotencyKey: true },
      });
      expect(stored).toHaveLength(50);
    }
    // The same keys again answer with the runs stored the first time.
    for (const job of jobs.slice(0, 8)) {
      const again = await upload(job.org, job.body, job.format, job.key);
      expect(again.status).toBe(200);
      expect((again.body as { run: { id: string } }).run.id).toBe(runIds.get(job.key));
    }
    console.log(`200 uploads: ${refusals} refusals (503) retried after Retry-After`);
  }, 600_000);
});
