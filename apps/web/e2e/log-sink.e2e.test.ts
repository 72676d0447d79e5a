import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createTestDatabase, type TestDatabase } from "@benchboard/db/testing";
import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "./harness";

const webDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** CPU seconds (user + system) a process has used, from /proc. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Fields 14 and 15 of proc(5) (utime, stime), counted from after the command name.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function answers(url: string, timeoutMs: number): Promise<number> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      return (await fetch(url, { redirect: "manual", signal: AbortSignal.timeout(5_000) })).status;
    } catch (error) {
      if (Date.now() > until) throw error;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

let child: ChildProcess | null = null;
let db: TestDatabase | null = null;
afterEach(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child!.once("exit", r));
    child.kill("SIGKILL");
    await exited;
  }
  child = null;
  await db?.drop().catch(() => undefined);
  db = null;
});

describe("the web server without its log sink", () => {
  it("goes on answering, without spinning, once the pipe holding its output is gone", async () => {
    db = await createTestDatabase();
    const port = await freePort();
    child = spawn(process.execPath, ["server.mjs", "-p", String(port), "-H", "127.0.0.1"], {
      cwd: webDir,
      env: { ...process.env, DATABASE_URL: db.url, NEXT_TELEMETRY_DISABLED: "1", PORT: String(port) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const base = `http://127.0.0.1:${port}`;
    expect(await answers(`${base}/sign-in`, 60_000)).toBe(200);
    // The process reading its output dies: both pipes are closed at our end.
    child.stdout!.destroy();
    child.stderr!.destroy();
    // Pages that need the database now fail, and the server logs why, into the closed pipes.
    await db.drop();
    db = null;
    for (let i = 0; i < 3; i++) await answers(`${base}/sign-in`, 10_000);
    await new Promise((r) => setTimeout(r, 500));
    const before = cpuSeconds(child.pid!);
    await new Promise((r) => setTimeout(r, 3_000));
    const used = cpuSeconds(child.pid!) - before;
    // A server caught in a logging loop uses the whole 3 s; an idle one next to nothing.
    expect(used, `CPU seconds used in 3 s while idle`).toBeLessThan(1);
    expect(child.exitCode).toBeNull();
    expect(await answers(`${base}/sign-in`, 10_000)).toBeGreaterThanOrEqual(200);
  });
});
