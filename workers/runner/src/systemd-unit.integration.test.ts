import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createAgentToken } from "@benchboard/db";
import { DEFAULT_REDIS_URL } from "@benchboard/jobs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentStack, startAgentStack } from "../test/agent-stack";
import { waitFor } from "../test/wait";

// The systemd unit shipped for agents (deploy/systemd), checked by systemd itself and then run:
// `systemd-analyze verify` loads the unit as systemd would start it and dumps what it parsed; the
// environment file it names is read with systemd's rules, and the command it runs, with that
// environment, must bring an agent online at a real server.

const root = fileURLToPath(new URL("../../../", import.meta.url));
const UNIT = path.join(root, "deploy/systemd/benchboard-agent.service");
const ENV_EXAMPLE = path.join(root, "deploy/systemd/benchboard-agent.env.example");
const CLI = path.join(root, "apps/cli/bin/benchboard.js");
/** Where the unit expects the installed CLI and its environment file (docs/agents.md). */
const INSTALLED_CLI = "/opt/benchboard/bin/benchboard";
const ENV_FILE = "/etc/benchboard-agent.env";

const redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
let stack: AgentStack | undefined;
let dir = "";
const children: ChildProcess[] = [];
const logs: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "bb-systemd-"));
  stack = await startAgentStack(redisUrl, `bbsystemd-${randomBytes(4).toString("hex")}`);
}, 60_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  await stack?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** An environment file as systemd reads it (systemd.exec(5)): comments are whole lines only. */
function readEnvironmentFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (!line || line.startsWith("#") || line.startsWith(";")) continue;
    const eq = line.indexOf("=");
    if (eq <= 0) continue;
    let value = line.slice(eq + 1).trim();
    const quoted = /^(["'])(.*)\1$/.exec(value);
    if (quoted) value = quoted[2]!;
    env[line.slice(0, eq).trim()] = value;
  }
  return env;
}

/** The unit as systemd loaded it: `systemd-analyze verify` at debug level dumps it on stdout. */
function verify(unitPath: string) {
  const out = spawnSync("systemd-analyze", ["verify", "--man=no", unitPath], {
    env: { ...process.env, SYSTEMD_LOG_LEVEL: "debug", SYSTEMD_LOG_TARGET: "console" },
    encoding: "utf8",
    timeout: 60_000,
  });
  const field = (name: string) =>
    [...out.stdout.matchAll(new RegExp(`^\\s*${name}: (.*)$`, "gm"))].map((m) => m[1]!.trimEnd());
  // Warnings are the lines systemd logs about the unit itself (debug lines name other units too).
  const unitName = path.basename(unitPath);
  const warnings = out.stderr
    .split("\n")
    .filter((l) => l.includes(unitName) && /unknown|ignoring|invalid|failed|not executable|warning/i.test(l));
  return {
    status: out.status,
    stderr: out.stderr,
    environmentFiles: field("EnvironmentFile"),
    commandLines: field("Command Line"),
    warnings,
  };
}

describe("the systemd unit for agents", () => {
  it("is the one docs/agents.md shows", () => {
    const docs = readFileSync(path.join(root, "docs/agents.md"), "utf8");
    const block = /^## systemd\n[\s\S]*?```ini\n([\s\S]*?)```/m.exec(docs)?.[1];
    expect(block, "the ini block under ## systemd in docs/agents.md").toBeDefined();
    expect(block).toBe(readFileSync(UNIT, "utf8"));
  });

  it("passes systemd-analyze verify, names its environment file exactly, and its command brings an agent online", async () => {
    const { t, rest } = stack!;
    // The installed CLI where the unit expects it, as `npm install -g --prefix /opt/benchboard` puts it.
    const bin = path.join(dir, INSTALLED_CLI);
    mkdirSync(path.dirname(bin), { recursive: true });
    writeFileSync(bin, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} "$@"\n`);
    chmodSync(bin, 0o755);
    // The environment file: the example, with this server's address and a real agent token.
    const org = await t.db.organization.create({
      data: { name: "Systemd", slug: `systemd-${randomBytes(3).toString("hex")}` },
    });
    const { token } = await createAgentToken(t.db, org.id, { name: "systemd agents", createdById: null });
    const example = readFileSync(ENV_EXAMPLE, "utf8");
    const exampleEnv = readEnvironmentFile(example);
    expect(Object.keys(exampleEnv).sort()).toEqual(["BENCHBOARD_AGENT_TOKEN", "BENCHBOARD_URL", "GATEWAY_KEY"]);
    const envPath = path.join(dir, ENV_FILE);
    mkdirSync(path.dirname(envPath), { recursive: true });
    writeFileSync(
      envPath,
      example
        .replace(/^BENCHBOARD_URL=.*$/m, `BENCHBOARD_URL=${rest.url}`)
        .replace(/^BENCHBOARD_AGENT_TOKEN=.*$/m, `BENCHBOARD_AGENT_TOKEN=${token}`),
      { mode: 0o600 },
    );
    // The unit, pointed at those two paths and nothing else changed.
    const unit = readFileSync(UNIT, "utf8");
    expect(unit.split(INSTALLED_CLI)).toHaveLength(2);
    expect(unit.split(ENV_FILE)).toHaveLength(2);
    const unitPath = path.join(dir, "benchboard-agent.service");
    writeFileSync(unitPath, unit.replace(INSTALLED_CLI, bin).replace(ENV_FILE, envPath));

    const verified = verify(unitPath);
    expect(verified.status, verified.stderr.slice(-2_000)).toBe(0);
    expect(verified.warnings).toEqual([]);
    // What systemd will read at start: exactly the environment file, not a path with a comment.
    expect(verified.environmentFiles).toEqual([envPath]);
    expect(verified.commandLines).toHaveLength(1);

    // Start what systemd would start: the parsed command, with the file's environment.
    const env = readEnvironmentFile(readFileSync(verified.environmentFiles[0]!, "utf8"));
    expect(env.BENCHBOARD_URL).toBe(rest.url);
    const [command, ...args] = verified.commandLines[0]!.split(/\s+/);
    expect(command).toBe(bin);
    const child = spawn(command!, args, {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(child);
    child.stdout?.on("data", (d) => logs.push(String(d)));
    child.stderr?.on("data", (d) => logs.push(String(d)));
    const agent = await waitFor(
      () => t.db.agent.findFirst({ where: { orgId: org.id, stoppedAt: null } }),
      30_000,
      "the unit's agent to announce",
      () => logs.join(""),
    );
    expect(agent.labels).toEqual(["lab"]);
    await waitFor(
      async () => logs.join("").includes("connected to"),
      10_000,
      "the agent's first line",
      () => logs.join(""),
    );
    // systemd stops it with SIGTERM: the agent says goodbye and exits 0.
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    await waitFor(
      async () => (await t.db.agent.findUniqueOrThrow({ where: { id: agent.id } })).stoppedAt !== null,
      10_000,
      "the agent to say it stopped",
    );
  }, 90_000);
});
