import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { createCaller } from "@benchboard/api";
import { createAgentToken } from "@benchboard/db";
import type { TestDatabase } from "@benchboard/db/testing";
import { DEFAULT_REDIS_URL } from "@benchboard/jobs";
import type { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentStack, startAgentStack } from "../test/agent-stack";
import { waitFor as waitForIn } from "../test/wait";

// `benchboard agent` behind a proxy, with real parts: a small forwarding proxy (CONNECT tunnels
// and absolute-URI requests) on 127.0.0.1 that records what passed through it, a real agent
// process given HTTP_PROXY (and NO_PROXY), and a target that counts the load it gets. The agent's
// calls to the server go through the proxy; its load goes straight to the target.

const CLI = fileURLToPath(new URL("../../../apps/cli/bin/benchboard.js", import.meta.url));
const redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
const prefix = `bbproxy-${randomBytes(4).toString("hex")}`;

let stack: AgentStack | undefined;
let t: TestDatabase;
let queue: Queue;
let queueFor: AgentStack["queueFor"];
let rest: AgentStack["rest"];
let targetServer: http.Server;
let targetUrl = "";
let proxy: http.Server;
let proxyPort = 0;
/** What passed through the proxy: `CONNECT host:port` or `<METHOD> <absolute URL>`. */
const proxied: string[] = [];
/** Proxy-Authorization headers the proxy was sent (the agent must send the URL's credentials here only). */
const proxyAuth: string[] = [];
let hits = 0;
const logs: string[] = [];
const children: ChildProcess[] = [];

function startProxy() {
  const server = http.createServer((req, res) => {
    proxied.push(`${req.method} ${req.url}`);
    if (req.headers["proxy-authorization"]) proxyAuth.push(String(req.headers["proxy-authorization"]));
    const url = new URL(req.url ?? "");
    const { "proxy-authorization": _auth, "proxy-connection": _conn, ...headers } = req.headers;
    const upstream = http.request(
      { host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, method: req.method, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  server.on("connect", (req, socket, head) => {
    proxied.push(`CONNECT ${req.url}`);
    if (req.headers["proxy-authorization"]) proxyAuth.push(String(req.headers["proxy-authorization"]));
    const [host, port] = (req.url ?? "").split(":");
    const upstream = net.connect(Number(port), host, () => {
      socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length) upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on("error", () => socket.destroy());
    socket.on("error", () => upstream.destroy());
  });
  return server;
}

beforeAll(async () => {
  targetServer = http.createServer((_req, res) => {
    hits++;
    res.end("ok");
  });
  await new Promise<void>((resolve) => targetServer.listen(0, "127.0.0.1", resolve));
  targetUrl = `http://127.0.0.1:${(targetServer.address() as AddressInfo).port}`;
  proxy = startProxy();
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  proxyPort = (proxy.address() as AddressInfo).port;
  stack = await startAgentStack(redisUrl, prefix);
  ({ t, queue, queueFor, rest } = stack);
}, 60_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  await stack?.close();
  targetServer?.close();
  proxy?.closeAllConnections();
  proxy?.close();
});

const context = () => logs.join("");
const waitFor = <T>(check: () => Promise<T | false | null | undefined>, timeoutMs: number, what: string) =>
  waitForIn(check, timeoutMs, what, context);

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once("exit", (code) => resolve(code));
  });

function spawnAgent(name: string, url: string, env: Record<string, string>, extra: string[] = []) {
  const child = spawn(process.execPath, [CLI, "agent", "--url", url, "--name", name, "--poll-s", "2", ...extra], {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (d) => logs.push(`[${name}] ${d}`));
  child.stderr?.on("data", (d) => logs.push(`[${name}] ${d}`));
  children.push(child);
  return child;
}

const output = (name: string) =>
  logs
    .filter((l) => l.startsWith(`[${name}] `))
    .map((l) => l.slice(name.length + 3))
    .join("");

async function tenant() {
  const org = await t.db.organization.create({
    data: { name: "Behind a proxy", slug: `proxy-${randomBytes(3).toString("hex")}` },
  });
  const caller = createCaller({
    db: t.db,
    queue,
    queueFor,
    orgId: org.id,
    userId: null,
    role: "owner",
    secretKey: randomBytes(32),
  });
  const { token } = await createAgentToken(t.db, org.id, { name: "agents", createdById: null });
  const project = await caller.project.create({ name: "p" });
  const target = await caller.target.create({
    projectId: project.id,
    name: "api",
    kind: "http",
    baseUrl: targetUrl,
  } as never);
  const scenario = await caller.scenario.create({
    projectId: project.id,
    name: "s",
    spec: { engine: "http-open", rate: 20, durationS: 1 } as never,
  });
  return { org, caller, token, target, scenario };
}

describe("agents behind a proxy", () => {
  it("sends every call to the server through HTTP_PROXY (credentials never printed), and the load straight to the target", async () => {
    const a = await tenant();
    const restHost = new URL(rest.url).host;
    const targetHost = new URL(targetUrl).host;
    const before = proxied.length;
    const child = spawnAgent(
      "proxied",
      rest.url,
      {
        BENCHBOARD_AGENT_TOKEN: a.token,
        HTTP_PROXY: `http://ops:hunter2-secret@127.0.0.1:${proxyPort}`,
      },
      ["--label", "lab", "--once"],
    );
    await waitFor(async () => output("proxied").includes("connected to"), 30_000, "the agent to announce");
    expect(output("proxied")).toContain(`through the proxy http://127.0.0.1:${proxyPort}`);
    const launched = await a.caller.run.launch({ targetId: a.target.id, scenarioId: a.scenario.id, agentLabel: "lab" });
    expect(await exited(child), context()).toBe(0);
    const run = await a.caller.run.byId({ id: launched.id });
    expect(run.status, run.error ?? "").toBe("succeeded");
    expect(hits).toBeGreaterThanOrEqual(15);

    const passed = proxied.slice(before);
    // Announce, claims, reports: all through the proxy, to the server's address.
    expect(passed.length).toBeGreaterThan(0);
    expect(passed.every((p) => p === `CONNECT ${restHost}` || p.includes(`//${restHost}/api/v1/`))).toBe(true);
    // Never the load: the target was reached directly.
    expect(passed.some((p) => p.includes(targetHost))).toBe(false);
    // The proxy got the URL's credentials; the agent's output never shows them.
    expect(proxyAuth.at(-1)).toBe(`Basic ${Buffer.from("ops:hunter2-secret").toString("base64")}`);
    expect(context()).not.toContain("hunter2");
  }, 60_000);

  it("reaches hosts in NO_PROXY directly", async () => {
    const b = await tenant();
    const before = proxied.length;
    const child = spawnAgent(
      "direct",
      rest.url,
      {
        BENCHBOARD_AGENT_TOKEN: b.token,
        HTTP_PROXY: `http://127.0.0.1:${proxyPort}`,
        NO_PROXY: "localhost,127.0.0.1",
      },
      ["--label", "lab2", "--once"],
    );
    await waitFor(async () => output("direct").includes("connected to"), 30_000, "the agent to announce");
    expect(output("direct")).not.toContain("through the proxy");
    const launched = await b.caller.run.launch({
      targetId: b.target.id,
      scenarioId: b.scenario.id,
      agentLabel: "lab2",
    });
    expect(await exited(child), context()).toBe(0);
    expect((await b.caller.run.byId({ id: launched.id })).status).toBe("succeeded");
    expect(proxied.slice(before)).toEqual([]);
  }, 60_000);

  it("prints one line per retry while the server is unreachable: the attempt, the error and the next try", async () => {
    // A port nothing listens on: taken, then released.
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const child = spawnAgent("offline", `http://127.0.0.1:${port}`, { BENCHBOARD_AGENT_TOKEN: "bba_x" }, [
      "--label",
      "lab",
    ]);
    const retryLine =
      /^\[agent offline\] announce: cannot reach the server \(ECONNREFUSED\); retrying in \d+\.\d s \(attempt (\d+), giving up \d+ s from now\)$/;
    const lines = await waitFor(
      async () => {
        const found = output("offline")
          .split("\n")
          .filter((l) => retryLine.test(l));
        return found.length >= 3 ? found : null;
      },
      30_000,
      "three retry lines",
    );
    expect(lines.slice(0, 3).map((l) => Number(retryLine.exec(l)![1]))).toEqual([2, 3, 4]);
    child.kill("SIGTERM");
    await exited(child);
  }, 60_000);
});
