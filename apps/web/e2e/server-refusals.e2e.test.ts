import { type ChildProcess, spawn } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createTestDatabase, type TestDatabase } from "@benchboard/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "./harness";

// What the HTTP server itself refuses, before any route runs: the client must read the answer.
const webDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
let child: ChildProcess;
let db: TestDatabase;
let port = 0;

beforeAll(async () => {
  db = await createTestDatabase();
  port = await freePort();
  child = spawn(process.execPath, ["server.mjs", "-p", String(port), "-H", "127.0.0.1"], {
    cwd: webDir,
    env: { ...process.env, DATABASE_URL: db.url, NEXT_TELEMETRY_DISABLED: "1" },
    stdio: ["ignore", "ignore", "ignore"],
  });
  const until = Date.now() + 60_000;
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/api/v1/openapi.json`)).ok) break;
    } catch {}
    if (Date.now() > until) throw new Error("the web app did not come up");
    await new Promise((r) => setTimeout(r, 200));
  }
}, 90_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    await exited;
  }
  await db?.drop();
});

/**
 * Sends `head`, then keeps sending body chunks for `sendMs` as a client that has not read the
 * answer yet does; resolves with what it read and any socket error.
 */
function exchange(head: string, sendMs: number): Promise<{ read: string; error: string | null }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    let read = "";
    let error: string | null = null;
    const chunk = `${(8192).toString(16)}\r\n${"x".repeat(8192)}\r\n`;
    let timer: NodeJS.Timeout | undefined;
    socket.on("connect", () => {
      socket.write(head);
      const until = Date.now() + sendMs;
      const pump = () => {
        if (Date.now() > until || socket.destroyed) return;
        socket.write(chunk);
        timer = setTimeout(pump, 1);
      };
      pump();
    });
    socket.on("data", (d) => {
      read += d.toString("latin1");
    });
    socket.on("error", (e: NodeJS.ErrnoException) => {
      error = e.code ?? e.message;
    });
    socket.on("close", () => {
      clearTimeout(timer);
      resolve({ read, error });
    });
  });
}

describe("requests the server refuses before any route", () => {
  it("answers a request line over 16 KB with 431 the client can read, while it is still sending", async () => {
    for (let i = 0; i < 5; i++) {
      const head =
        `POST /api/v1/runs?notes=${"a".repeat(120_000)} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
        "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
      const { read, error } = await exchange(head, 300);
      expect(read.slice(0, 12), `attempt ${i + 1}: ${error ?? "no error"}`).toBe("HTTP/1.1 431");
      expect(read.toLowerCase()).toContain("connection: close");
      expect(error, `attempt ${i + 1}`).toBeNull();
    }
  }, 60_000);

  it("answers a malformed request with 400, and a good one on a new connection still works", async () => {
    const { read, error } = await exchange("GET / HTTP/1.1\r\nHost: a\r\nBad Header\r\n\r\n", 0);
    expect(read.slice(0, 12)).toBe("HTTP/1.1 400");
    expect(error).toBeNull();
    expect((await fetch(`http://127.0.0.1:${port}/api/v1/openapi.json`)).status).toBe(200);
  });
});
