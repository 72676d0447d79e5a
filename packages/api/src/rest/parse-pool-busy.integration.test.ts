import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ParsePool } from "@benchboard/core/importers/parse-pool";
import type { TestDatabase } from "@benchboard/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUploadingOrg, startTestServices, type TestServices } from "../testing/services";
import type { RestDeps } from "./auth";
import type { RestResponse } from "./http";
import { uploadRunHandler } from "./runs";

// The parse pool's refusals, end to end: a pool of one thread with room for one waiting read is
// filled for real by slow uploads (9.9 MB of blank lines take seconds to read), so the next upload
// is answered 503 with the pool's own Retry-After, and the `benchboard upload` command — a real
// process talking HTTP to a real server on 127.0.0.1 — waits that long, retries, and stores its
// run exactly once.
const CLI_DIR = fileURLToPath(new URL("../../../../apps/cli/", import.meta.url));
const SLOW = "\n".repeat(9_900_000);
const TINY = "Running 1s test @ http://h/\n  9 requests in 1.00s, 1KB read\nRequests/sec: 9.00\n";

let t: TestDatabase;
let services: TestServices;
let deps: RestDeps;
let pool: ParsePool;
let org: { id: string; token: string; project: string };
const prefix = `bbbusy-${randomBytes(4).toString("hex")}`;
const globals = globalThis as unknown as { benchboardParsePool?: ParsePool };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  services = await startTestServices(prefix);
  ({ t } = services);
  deps = services.restDeps({ requestsPerWindow: 10_000 });
  org = await createUploadingOrg(t.db, "Org", "org");
  // The process's pool (what the handlers use), made small enough to fill.
  pool = new ParsePool({ size: 1, maxThreadsPerOwner: 1, maxQueuedPerOwner: 1 });
  globals.benchboardParsePool = pool;
});

afterAll(async () => {
  await pool?.close();
  globals.benchboardParsePool = undefined;
  await services?.close();
});

function upload(body: string, format: string, key?: string): Promise<RestResponse> {
  const headers: Record<string, string> = { authorization: `Bearer ${org.token}`, "content-type": "text/plain" };
  if (key) headers["idempotency-key"] = key;
  const url = `http://bench.test/api/v1/runs?project=${org.project}&format=${format}`;
  return uploadRunHandler(new Request(url, { method: "POST", headers, body }), deps);
}

async function until(what: string, check: () => boolean, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

/** Seconds the pool asks a refused upload to wait, by its own rule, with `held` bytes and one read waiting. */
const poolRetryAfter = (held: number) => Math.min(30, Math.max(1, Math.ceil((held / 1024 / 1024 + 1) / 10)));

/** Slow uploads that keep the pool's thread busy and its one waiting place taken until `stop()`. */
function keepPoolFull() {
  let stopped = false;
  const statuses: number[] = [];
  const lane = async () => {
    while (!stopped) {
      const res = await upload(SLOW, "auto");
      statuses.push(res.status);
      if (res.status === 503) await sleep(20);
    }
  };
  const lanes = [lane(), lane(), lane()];
  return {
    statuses,
    async stop() {
      stopped = true;
      await Promise.all(lanes);
    },
  };
}

describe("a full parse pool", () => {
  it("answers 503 with the pool's Retry-After, and the CLI waits, retries and stores its run once", async () => {
    const filler = keepPoolFull();
    let cliRefusals = 0;
    try {
      await until("the pool to fill", () => pool.usage(org.id).threads === 1 && pool.usage(org.id).queued === 1);

      // An upload now is refused at once, nothing stored, with the pool's own time to come back.
      const refused = await upload(TINY, "wrk", "direct-1");
      expect(refused.status, JSON.stringify(refused.body)).toBe(503);
      expect(JSON.stringify(refused.body)).toMatch(/too many uploads are being read/);
      expect(refused.headers?.["retry-after"]).toBe(String(poolRetryAfter(2 * SLOW.length)));
      expect(await t.db.run.count({ where: { orgId: org.id } })).toBe(0);

      // The same upload through the CLI, over HTTP.
      const answers: { status: number; retryAfter?: string }[] = [];
      const server = http.createServer(async (req, res) => {
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const headers = new Headers();
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
        const request = new Request(`http://127.0.0.1${req.url}`, {
          method: req.method,
          headers,
          body: Buffer.concat(chunks),
        });
        const answer = await uploadRunHandler(request, deps);
        answers.push({ status: answer.status, retryAfter: answer.headers?.["retry-after"] });
        if (answer.status === 503) {
          cliRefusals++;
          // Refused once: let the pool drain so that a retry is taken.
          void filler.stop();
        }
        res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
        res.end(JSON.stringify(answer.body));
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const dir = await mkdtemp(path.join(tmpdir(), "bb-busy-"));
      try {
        const file = path.join(dir, "wrk.txt");
        await writeFile(file, TINY);
        const { port } = server.address() as AddressInfo;
        const cli = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
          const child = spawn(
            process.execPath,
            ["--import", "tsx", "src/cli.ts", "upload", file, "--project", org.project, "--format", "wrk", "--json"],
            {
              cwd: CLI_DIR,
              env: {
                PATH: process.env.PATH,
                BENCHBOARD_URL: `http://127.0.0.1:${port}`,
                BENCHBOARD_TOKEN: org.token,
                BENCHBOARD_RETRY_FOR: "180",
              },
            },
          );
          let stdout = "";
          let stderr = "";
          child.stdout.on("data", (d) => {
            stdout += d;
          });
          child.stderr.on("data", (d) => {
            stderr += d;
          });
          child.on("error", reject);
          child.on("close", (code) => resolve({ code, stdout, stderr }));
        });
        expect(cli.code, cli.stderr).toBe(0);
        expect(cliRefusals).toBeGreaterThanOrEqual(1);
        // Every refusal the CLI saw carried the pool's time (two slow uploads held, one waiting).
        for (const a of answers.filter((x) => x.status === 503)) {
          expect(a.retryAfter).toBe(String(poolRetryAfter(2 * SLOW.length)));
        }
        expect(answers.at(-1)?.status).toBe(201);
        expect(cli.stderr).toMatch(/HTTP 503: .*too many uploads are being read.*; retrying in \d+\.\d s/);
        const out = JSON.parse(cli.stdout) as { run: { id: string } };
        const stored = await t.db.run.findMany({ where: { orgId: org.id }, select: { id: true, source: true } });
        expect(stored).toEqual([{ id: out.run.id, source: "import:wrk" }]);
      } finally {
        server.close();
        await rm(dir, { recursive: true, force: true });
      }
    } finally {
      await filler.stop();
    }
    // The slow uploads were read (blank lines are no report) or refused; none was stored.
    expect(filler.statuses.every((s) => s === 400 || s === 503)).toBe(true);
    expect(await t.db.run.count({ where: { orgId: org.id } })).toBe(1);
  }, 300_000);
});
