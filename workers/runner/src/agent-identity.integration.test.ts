import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { createCaller } from "@benchboard/api";
import { createAgentToken, createApiToken } from "@benchboard/db";
import type { TestDatabase } from "@benchboard/db/testing";
import { DEFAULT_REDIS_URL } from "@benchboard/jobs";
import type { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentStack, startAgentStack } from "../test/agent-stack";
import { waitFor as waitForIn } from "../test/wait";
import { readEnv, runnerOptionsFromEnv } from "./env";
import { startRunner } from "./worker";

// Agent names, with real `benchboard agent` processes: the newest announce of a name holds it,
// and the process it displaced is told so and exits (with another token, or with the same one);
// offline agents are removed by hand (tRPC, REST, `benchboard agent remove`) or by a worker once
// the retention its environment sets has passed.

const CLI = fileURLToPath(new URL("../../../apps/cli/bin/benchboard.js", import.meta.url));
const redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
const prefix = `bbident-${randomBytes(4).toString("hex")}`;

let stack: AgentStack | undefined;
let t: TestDatabase;
let queue: Queue;
let queueFor: AgentStack["queueFor"];
let rest: AgentStack["rest"];
const logs: string[] = [];
const children: ChildProcess[] = [];

beforeAll(async () => {
  stack = await startAgentStack(redisUrl, prefix);
  ({ t, queue, queueFor, rest } = stack);
}, 60_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  await stack?.close();
});

const context = () => logs.join("");
const waitFor = <T>(check: () => Promise<T | false | null | undefined>, timeoutMs: number, what: string) =>
  waitForIn(check, timeoutMs, what, context);

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once("exit", (code) => resolve(code));
  });

/** A real agent process under `tag` in the logs; resolves once it announced. */
async function startAgent(token: string, name: string, tag: string) {
  const child = spawn(
    process.execPath,
    [CLI, "agent", "--url", rest.url, "--name", name, "--label", "pods", "--poll-s", "2"],
    { env: { PATH: process.env.PATH ?? "", BENCHBOARD_AGENT_TOKEN: token }, stdio: ["ignore", "pipe", "pipe"] },
  );
  child.stdout?.on("data", (d) => logs.push(`[${tag}] ${d}`));
  child.stderr?.on("data", (d) => logs.push(`[${tag}] ${d}`));
  children.push(child);
  await waitFor(
    async () => logs.some((l) => l.startsWith(`[${tag}] `) && l.includes("connected to")),
    30_000,
    `agent ${tag} to announce`,
  );
  return child;
}

const output = (tag: string) =>
  logs
    .filter((l) => l.startsWith(`[${tag}] `))
    .map((l) => l.slice(tag.length + 3))
    .join("");

function cli(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? "", BENCHBOARD_URL: rest.url, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d) => {
    stdout += d;
  });
  child.stderr?.on("data", (d) => {
    stderr += d;
  });
  return exited(child).then((code) => ({ code, stdout, stderr }));
}

async function tenant() {
  const org = await t.db.organization.create({
    data: { name: "Pods", slug: `ident-${randomBytes(3).toString("hex")}` },
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
  return { org, caller };
}

describe("agent names", () => {
  it("the newest announce of a name takes it: the displaced process is told why and exits, with another token or the same one", async () => {
    const { org } = await tenant();
    const first = await createAgentToken(t.db, org.id, { name: "before rotation", createdById: null });
    const second = await createAgentToken(t.db, org.id, { name: "after rotation", createdById: null });

    const old = await startAgent(first.token, "pod-1", "old");
    // The token is rotated: a new process announces the same name with the new token.
    const rotated = await startAgent(second.token, "pod-1", "rotated");
    // Within its poll (2 s) the old process learns it lost the name, and exits non-zero.
    expect(await exited(old)).toBe(2);
    expect(output("old")).toMatch(
      /the name pod-1 was taken at \S+Z by a newer agent process announced with agent token "after rotation": this process stops/,
    );
    expect(output("old")).not.toContain("trying again");
    // One row for the name, now the new token's, and the new process keeps working.
    const rows = await t.db.agent.findMany({ where: { orgId: org.id, name: "pod-1" } });
    expect(rows.map((r) => r.tokenId)).toEqual([second.record.id]);
    expect(rows[0]!.stoppedAt).toBeNull();

    // A second process with the same name and the same token: the same rule, not a merged row.
    const twin = await startAgent(second.token, "pod-1", "twin");
    expect(await exited(rotated)).toBe(2);
    expect(output("rotated")).toMatch(
      /the name pod-1 was taken at \S+Z by a newer agent process announced with this agent token/,
    );
    const after = await t.db.agent.findMany({ where: { orgId: org.id, name: "pod-1" } });
    expect(after).toHaveLength(1);
    // The displaced process did not mark the name stopped: the newest process is online.
    expect(after[0]!.stoppedAt).toBeNull();
    expect(after[0]!.instanceId).not.toBe(rows[0]!.instanceId);
    await new Promise((r) => setTimeout(r, 2_500));
    expect(twin.exitCode).toBeNull();
    twin.kill("SIGTERM");
    expect(await exited(twin)).toBe(0);
  }, 90_000);

  it("an offline agent is removed through tRPC, REST or `benchboard agent remove`; an online one is refused", async () => {
    const { org, caller } = await tenant();
    const { token } = await createAgentToken(t.db, org.id, { name: "agents", createdById: null });
    const { token: apiToken } = await createApiToken(t.db, org.id, {
      name: "ops",
      scopes: ["config:read", "config:write"],
      createdById: null,
    });
    const online = await startAgent(token, "ci-once", "ci-once");
    await expect(caller.agent.remove({ name: "ci-once" })).rejects.toThrow(/agent ci-once is online/);
    const refused = await fetch(`${rest.url}/api/v1/agents/ci-once`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${apiToken}` },
    });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: { field?: string } }).error.field).toBe("name");

    online.kill("SIGTERM");
    expect(await exited(online)).toBe(0);
    // Stopped: the CLI removes it with an API token, and it leaves the list.
    const out = await cli(["agent", "remove", "ci-once"], { BENCHBOARD_TOKEN: apiToken });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toBe("Removed agent ci-once\n");
    expect((await caller.agent.list()).map((a) => a.name)).not.toContain("ci-once");
    // Again: not found, naming the field.
    const missing = await fetch(`${rest.url}/api/v1/agents/ci-once`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${apiToken}` },
    });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { message: string } }).error.message).toContain(
      "no agent named ci-once",
    );
    // tRPC removes an offline one too.
    const other = await startAgent(token, "pod-gone", "pod-gone");
    other.kill("SIGTERM");
    expect(await exited(other)).toBe(0);
    expect(await caller.agent.remove({ name: "pod-gone" })).toMatchObject({ name: "pod-gone" });
    expect(await t.db.agent.count({ where: { orgId: org.id } })).toBe(0);
  }, 90_000);

  it("a worker removes agents offline for longer than BENCHBOARD_AGENT_RETENTION_DAYS and keeps the rest", async () => {
    const { org } = await tenant();
    const { record } = await createAgentToken(t.db, org.id, { name: "agents", createdById: null });
    const day = 86_400_000;
    const at = (msAgo: number) => new Date(Date.now() - msAgo);
    await t.db.agent.createMany({
      data: [
        { orgId: org.id, tokenId: record.id, name: "stale", labels: ["x"], lastSeenAt: at(3 * day) },
        {
          orgId: org.id,
          tokenId: record.id,
          name: "stopped-long-ago",
          labels: ["x"],
          lastSeenAt: at(4 * day),
          stoppedAt: at(3 * day),
        },
        { orgId: org.id, tokenId: record.id, name: "recent", labels: ["x"], lastSeenAt: at(day / 2) },
        { orgId: org.id, tokenId: record.id, name: "online", labels: ["x"], lastSeenAt: new Date() },
      ],
    });
    const env = readEnv({
      DATABASE_URL: t.url,
      REDIS_URL: redisUrl,
      BENCHBOARD_QUEUE_PREFIX: prefix,
      BENCHBOARD_WORKER_ID: `w-${prefix}`,
      BENCHBOARD_AGENT_RETENTION_DAYS: "2",
    });
    expect(runnerOptionsFromEnv(env, {}).agentRetentionDays).toBe(2);
    expect(runnerOptionsFromEnv(readEnv({ BENCHBOARD_AGENT_RETENTION_DAYS: "0" }), {}).agentRetentionDays).toBeNull();
    expect(runnerOptionsFromEnv(readEnv({}), {}).agentRetentionDays).toBe(7);
    expect(() => readEnv({ BENCHBOARD_AGENT_RETENTION_DAYS: "soon" })).toThrow(/BENCHBOARD_AGENT_RETENTION_DAYS/);
    const lines: string[] = [];
    const runner = await startRunner({
      ...runnerOptionsFromEnv(env, {}),
      notify: false,
      retentionTiming: { firstAfterMs: 100, everyMs: 60_000 },
      log: (line) => lines.push(line),
    });
    try {
      await waitFor(
        async () => lines.some((l) => l.includes("agent(s) offline for over 2 days removed")),
        20_000,
        "the worker's retention pass",
      );
    } finally {
      await runner.close();
    }
    const left = await t.db.agent.findMany({ where: { orgId: org.id }, orderBy: { name: "asc" } });
    expect(left.map((a) => a.name)).toEqual(["online", "recent"]);
    expect(lines.join("\n")).toContain("retention: 2 agent(s) offline for over 2 days removed");
  }, 60_000);
});
