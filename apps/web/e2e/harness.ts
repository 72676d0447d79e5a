import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createSession, signUp } from "@benchboard/db";
import { createTestDatabase, type TestDatabase } from "@benchboard/db/testing";
import { type Browser, chromium, type Page } from "playwright-core";

/**
 * Browser tests run the real product: the built Next.js server and a worker process on a fresh
 * database and a private queue prefix, driven by Debian's Chromium.
 */
const webDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const repoRoot = path.resolve(webDir, "../..");
export const screenshotsDir = path.join(repoRoot, "docs/screenshots");

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}

async function waitForHttp(url: string, timeoutMs: number, logs: string[]) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      const res = await fetch(url);
      if (res.status < 500) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not come up\n${logs.join("")}`);
}

export interface Stack {
  baseUrl: string;
  db: TestDatabase;
  /** The signed-in owner of the local organization the browser acts as. */
  user: { id: string; email: string; password: string };
  browser: Browser;
  page: Page;
  logs: string[];
  /** The file the web app writes account mail to (no mail server in tests). */
  mailLog: string;
  /**
   * The token of the newest link to `linkPath` (e.g. "/reset-password/") mailed to `email` after
   * the file held `fromChars` characters; waits for the mail, which is sent after answering.
   */
  mailedToken(email: string, linkPath: string, fromChars?: number): Promise<string>;
  /** What the mail file holds now (to read mail sent from here on, pass its length to mailedToken). */
  readMail(): Promise<string>;
  /** Kill the web app (SIGKILL) and start it again on the same port; resolves once it answers. */
  restartWeb(options?: { downMs?: number }): Promise<void>;
  close(): Promise<void>;
}

export interface StackOptions {
  /** Worker processes to start (default: one, with the worker's default settings). */
  workers?: { labels?: string; concurrency?: number }[];
  /**
   * Put a reverse proxy in front of the web app, as deployments do: the browser talks to it, and
   * it answers 502 while the app is down (a restart) instead of refusing the connection.
   */
  proxy?: boolean;
}

/** A minimal reverse proxy on 127.0.0.1: streams both ways, 502 when the upstream is down. */
async function startProxy(upstreamPort: number): Promise<{ port: number; close(): void }> {
  const server = http.createServer((req, res) => {
    const upstream = http.request(
      { host: "127.0.0.1", port: upstreamPort, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        // The upstream died mid-answer (a killed app): cut the client's connection too.
        answer.on("close", () => {
          if (!answer.complete) res.destroy();
        });
      },
    );
    upstream.on("error", () => {
      if (res.headersSent) res.destroy();
      else res.writeHead(502, { "content-type": "text/plain" }).end("bad gateway");
    });
    res.on("close", () => upstream.destroy());
    req.pipe(upstream);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    port,
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const distDir = process.env.BENCHBOARD_NEXT_DIST_DIR || ".next";
  if (!existsSync(path.join(webDir, distDir, "BUILD_ID"))) {
    throw new Error("the web app is not built: run `pnpm --filter @benchboard/web build` first");
  }
  const db = await createTestDatabase();
  const prefix = `bbe2e-${randomBytes(4).toString("hex")}`;
  const port = await freePort();
  const logs: string[] = [];
  const mailDir = await mkdtemp(path.join(os.tmpdir(), "bbe2e-mail-"));
  const mailLog = path.join(mailDir, "mail.log");
  const readMail = () => readFile(mailLog, "utf8").catch(() => "");
  // The proxy answers 502 until the app is up; the app answers for both addresses, as an operator
  // lists the proxy's public address in BENCHBOARD_PUBLIC_URL (any other Host gets 421).
  const proxy = options.proxy ? await startProxy(port) : null;
  const env = {
    ...process.env,
    DATABASE_URL: db.url,
    BENCHBOARD_QUEUE_PREFIX: prefix,
    BENCHBOARD_WORKER_ID: `e2e-${prefix}`,
    NEXT_TELEMETRY_DISABLED: "1",
    PORT: String(port),
    // The operator of this install allows 127.0.0.1, where every test target listens, and opens
    // it to tenants too (accounts signed up in a test still verify an origin before load).
    BENCHBOARD_ALLOWED_TARGETS: "127.0.0.1",
    BENCHBOARD_TENANT_TARGETS: "127.0.0.1",
    BENCHBOARD_MAIL_LOG: mailLog,
    ...(proxy ? { BENCHBOARD_PUBLIC_URL: `http://127.0.0.1:${proxy.port},http://127.0.0.1:${port}` } : {}),
  };
  const children: ChildProcess[] = [];
  const launch = (cmd: string, args: string[], cwd: string, name: string, extraEnv: Record<string, string> = {}) => {
    const child = spawn(cmd, args, { cwd, env: { ...env, ...extraEnv }, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout?.on("data", (d) => logs.push(`[${name}] ${d}`));
    child.stderr?.on("data", (d) => logs.push(`[${name}] ${d}`));
    children.push(child);
    return child;
  };
  const startWeb = () => launch(process.execPath, ["server.mjs", "-p", String(port), "-H", "127.0.0.1"], webDir, "web");
  let web = startWeb();
  (options.workers ?? [{}]).forEach((w, i) => {
    const name = i === 0 ? "worker" : `worker-${i + 1}`;
    launch(process.execPath, ["--import", "tsx", "src/index.ts"], path.join(repoRoot, "workers/runner"), name, {
      BENCHBOARD_WORKER_ID: i === 0 ? `e2e-${prefix}` : `e2e-${prefix}-${i + 1}`,
      ...(w.labels !== undefined ? { BENCHBOARD_WORKER_LABELS: w.labels } : {}),
      ...(w.concurrency !== undefined ? { BENCHBOARD_WORKER_CONCURRENCY: String(w.concurrency) } : {}),
    });
  });
  const appUrl = `http://127.0.0.1:${port}`;
  await waitForHttp(`${appUrl}/`, 60_000, logs);
  const baseUrl = proxy ? `http://127.0.0.1:${proxy.port}` : appUrl;

  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run",
      "--disable-sync",
    ],
  });
  // The first account owns the local organization; the browser starts signed in as it.
  const password = "correct horse battery";
  const account = await signUp(db.db, { email: "owner@example.com", password, name: "Olivia Owner" });
  const session = await createSession(db.db, account.id);
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
  await context.addCookies([
    { name: "bb_session", value: session.token, url: baseUrl, httpOnly: true, sameSite: "Lax" },
  ]);
  const page = await context.newPage();
  await mkdir(screenshotsDir, { recursive: true });
  return {
    baseUrl,
    db,
    user: { id: account.id, email: account.email, password },
    browser,
    page,
    logs,
    mailLog,
    readMail,
    async mailedToken(email, linkPath, fromChars = 0) {
      const quote = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
      const pattern = new RegExp(
        `\\[mail\\] \\S+ to ${quote(email)}:[^\\n]*\\n(?:(?!\\[mail\\] )[\\s\\S])*?${quote(linkPath)}([A-Za-z0-9_-]{43})`,
        "g",
      );
      for (let i = 0; i < 100; i++) {
        const found = [...(await readMail()).slice(fromChars).matchAll(pattern)].pop()?.[1];
        if (found) return found;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`no mail to ${email} with a ${linkPath} link in ${mailLog}`);
    },
    async restartWeb({ downMs = 0 } = {}) {
      const old = web;
      const exited = old.exitCode === null && old.signalCode === null ? new Promise((r) => old.once("exit", r)) : null;
      old.kill("SIGKILL");
      await exited;
      children.splice(children.indexOf(old), 1);
      if (downMs) await new Promise((r) => setTimeout(r, downMs));
      web = startWeb();
      await waitForHttp(`${appUrl}/`, 60_000, logs);
    },
    async close() {
      await browser.close().catch(() => {});
      proxy?.close();
      for (const c of children) c.kill("SIGTERM");
      await Promise.all(children.map((c) => (c.exitCode === null ? new Promise((r) => c.once("exit", r)) : null)));
      await db.drop();
      await rm(mailDir, { recursive: true, force: true });
    },
  };
}
