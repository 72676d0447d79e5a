import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { mayRead, parseAllowEnv, resolveHeaders } from "./agent-env";

/** `${env:NAME}`, the placeholder a target's header value names a variable with. */
const ref = (name: string) => ["$", `{env:${name}}`].join("");

const HOST_ENV = {
  GATEWAY_KEY: "gw-key",
  BENCH_TENANT: "tenant-7",
  BENCH_REGION: "eu",
  AWS_SECRET_ACCESS_KEY: "aws-secret",
  HOME: "/root",
  BENCHBOARD_AGENT_TOKEN: "bba_agent-token",
};

const header = (value: string) => [{ name: "authorization", value }];

describe(`which environment names a target's ${ref("NAME")} header may read`, () => {
  it("reads nothing unless allowed: a refused name fails naming the header and the flag, not the value", () => {
    const none = parseAllowEnv([], undefined);
    for (const name of ["AWS_SECRET_ACCESS_KEY", "HOME", "GATEWAY_KEY"]) {
      const attempt = () => resolveHeaders(header(ref(name)), HOST_ENV, none);
      expect(attempt).toThrow(`header authorization: the target asks for ${ref(name)}`);
      expect(attempt).toThrow(`--allow-env ${name} (or BENCHBOARD_AGENT_ALLOW_ENV=${name})`);
      try {
        attempt();
      } catch (err) {
        expect((err as Error).message).not.toContain(HOST_ENV[name as keyof typeof HOST_ENV]);
      }
    }
    // Plain values pass as they are.
    expect(resolveHeaders([{ name: "x-plain", value: "literal" }], HOST_ENV, none)).toEqual({ "x-plain": "literal" });
  });

  it("reads names allowed exactly or by prefix, from the flag and from BENCHBOARD_AGENT_ALLOW_ENV", () => {
    const allow = parseAllowEnv(["GATEWAY_KEY"], "BENCH_*, OTHER");
    expect(
      resolveHeaders(
        [
          { name: "authorization", value: ref("GATEWAY_KEY") },
          { name: "x-tenant", value: ` ${ref("BENCH_TENANT")} ` },
          { name: "x-region", value: ref("BENCH_REGION") },
        ],
        HOST_ENV,
        allow,
      ),
    ).toEqual({ authorization: "gw-key", "x-tenant": "tenant-7", "x-region": "eu" });
    expect(mayRead(allow, "OTHER")).toBe(true);
    expect(mayRead(allow, "BENCH")).toBe(false);
    expect(() => resolveHeaders(header(ref("HOME")), HOST_ENV, allow)).toThrow(/--allow-env HOME/);
    // Allowed but unset: named too.
    expect(() => resolveHeaders(header(ref("OTHER")), HOST_ENV, allow)).toThrow(
      "header authorization: the agent's environment has no OTHER",
    );
  });

  it("never reads the agent's own token, whatever the list says", () => {
    for (const allow of [
      parseAllowEnv(["BENCHBOARD_AGENT_TOKEN"], undefined),
      parseAllowEnv(["BENCHBOARD_*", "B*"], undefined),
    ]) {
      expect(mayRead(allow, "BENCHBOARD_AGENT_TOKEN")).toBe(false);
      const attempt = () => resolveHeaders(header(ref("BENCHBOARD_AGENT_TOKEN")), HOST_ENV, allow);
      expect(attempt).toThrow(
        `header authorization: the target asks for ${ref("BENCHBOARD_AGENT_TOKEN")}, the agent's own token`,
      );
    }
  });

  it("refuses a bare * and entries that are not variable names, naming the entry", () => {
    expect(() => parseAllowEnv(["*"], undefined)).toThrow(/--allow-env '\*' would let any target read every variable/);
    expect(() => parseAllowEnv([], "*")).toThrow(/name the variables, or a prefix/);
    expect(() => parseAllowEnv(["GATE-WAY"], undefined)).toThrow("--allow-env GATE-WAY: expected a variable name");
    expect(() => parseAllowEnv(["A*B"], undefined)).toThrow("--allow-env A*B: expected a variable name");
    expect(parseAllowEnv([], " , ")).toEqual({ names: new Set(), prefixes: [] });
  });
});

describe("benchboard agent --allow-env", () => {
  const BIN = fileURLToPath(new URL("../../bin/benchboard.js", import.meta.url));
  const agent = (args: string[], env: Record<string, string>) =>
    new Promise<{ code: number; stderr: string; stdout: string }>((resolve, reject) => {
      execFile(
        process.execPath,
        [BIN, "agent", "--label", "lab", ...args],
        { timeout: 25_000, env: { PATH: process.env.PATH ?? "", ...env } },
        (err, stdout, stderr) => {
          if (err && typeof err.code !== "number") reject(err);
          else resolve({ code: typeof err?.code === "number" ? err.code : 0, stdout, stderr });
        },
      );
    });
  // Nothing listens on port 9 of loopback: the agent must refuse before it ever connects.
  const env = { BENCHBOARD_URL: "http://127.0.0.1:9", BENCHBOARD_AGENT_TOKEN: "bba_x", BENCHBOARD_RETRY_FOR: "0" };

  it("refuses every variable ('*') before connecting, and lists the flag in its help", async () => {
    const star = await agent(["--allow-env", "*"], env);
    expect(star.code).toBe(2);
    expect(star.stderr).toContain("--allow-env '*' would let any target read every variable");
    const fromEnv = await agent([], { ...env, BENCHBOARD_AGENT_ALLOW_ENV: "OK,no good" });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toContain("--allow-env no good: expected a variable name");
    const help = await agent(["--help"], env);
    expect(help.stdout).toContain("--allow-env <name>");
    expect(help.stdout).toContain("BENCHBOARD_AGENT_ALLOW_ENV");
  }, 60_000);
});
