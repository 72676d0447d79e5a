import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The server commands' own checks, before and around the network: each runs the real command.
const BIN = fileURLToPath(new URL("../bin/benchboard.js", import.meta.url));
const FIXTURES = fileURLToPath(new URL("../../../packages/core/src/importers/fixtures/", import.meta.url));
const TOKEN = "bb_secret-token-that-must-never-be-printed";

function benchboard(args: string[], env: Record<string, string> = {}) {
  const cwd = mkdtempSync(path.join(tmpdir(), "bb-cli-"));
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith("BENCHBOARD_") && !k.startsWith("GITHUB_")),
  );
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve, reject) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd, env: { ...clean, ...env }, timeout: 25_000 },
      (err, stdout, stderr) => {
        if (err && typeof err.code !== "number") reject(err);
        else resolve({ code: typeof err?.code === "number" ? err.code : 0, stdout, stderr });
      },
    );
  });
}

const wrk = `${FIXTURES}wrk/latency.txt`;

/** A port nothing listens on: taken from the OS, then released. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

describe("server commands", () => {
  it("say what to set when the server or token is missing", async () => {
    const noUrl = await benchboard(["upload", wrk, "--project", "gw"]);
    expect(noUrl).toMatchObject({ code: 2, stdout: "" });
    expect(noUrl.stderr).toContain("no server: set BENCHBOARD_URL (or --url)");
    const noToken = await benchboard(["compare", "--baseline", "main", "--head", "x"], {
      BENCHBOARD_URL: "http://127.0.0.1:9",
    });
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain("no API token: set BENCHBOARD_TOKEN");
    const badUrl = await benchboard(["upload", wrk, "--project", "gw"], {
      BENCHBOARD_URL: "ftp://example.com",
      BENCHBOARD_TOKEN: TOKEN,
    });
    expect(badUrl.stderr).toContain("must be an http:// or https:// address");
  });

  it("report an unreachable server without printing the token, after retrying for --retry-for", async () => {
    const port = await closedPort();
    const started = Date.now();
    const result = await benchboard(["run", "checkout", "--project", "gw", "--target", "api", "--retry-for", "4"], {
      BENCHBOARD_URL: `http://127.0.0.1:${port}/`,
      BENCHBOARD_TOKEN: TOKEN,
    });
    expect(result.code).toBe(2);
    const lines = result.stderr.trimEnd().split("\n");
    const waits = lines.slice(0, -1);
    // One line per wait, then the error with the attempts made; never the token.
    expect(waits.length).toBeGreaterThanOrEqual(2);
    for (const line of waits) {
      expect(line).toMatch(
        /^benchboard: launch: cannot reach the server \(ECONNREFUSED\); retrying in \d+\.\d s \(attempt \d+, giving up \d+ s from now\)$/,
      );
    }
    expect(lines.at(-1)).toMatch(
      new RegExp(
        `^benchboard: launch: cannot reach http://127\\.0\\.0\\.1:${port}: ECONNREFUSED \\(${waits.length + 1} attempts over \\d+ s\\)$`,
      ),
    );
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(result.stdout + result.stderr).not.toContain(TOKEN);
  });

  it("refuse bad options before sending anything", async () => {
    const env = { BENCHBOARD_URL: "http://127.0.0.1:9", BENCHBOARD_TOKEN: TOKEN };
    const config = await benchboard(["upload", wrk, "--project", "gw", "--config-json", "[1,2]"], env);
    expect(config.code).toBe(2);
    expect(config.stderr).toContain("--config-json: must be a JSON object");
    const project = await benchboard(["upload", wrk], env);
    expect(project.stderr).toContain("--project is required (or set BENCHBOARD_PROJECT)");
    const head = await benchboard(["compare", "--baseline", "main"], env);
    expect(head.stderr).toContain("no --head given and no run uploaded or launched from this directory");
    const tolerance = await benchboard(["compare", "--baseline", "main", "--tolerance", "-3"], env);
    expect(tolerance.code).toBe(2);
    expect(tolerance.stderr).toContain("expected a percentage from 0 to 1000");
    const format = await benchboard(["upload", wrk, "--project", "gw", "--format", "locust"], env);
    expect(format.stderr).toContain("expected auto, native, k6");
    const gate = await benchboard(["compare", "--baseline", "main", "--head", "x", "--on-inconclusive", "maybe"], env);
    expect(gate.code).toBe(2);
    expect(gate.stderr).toContain("expected fail or pass");
  });

  it("refuse to apply a file to another project than the one it names, naming both", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "bb-apply-"));
    const file = path.join(dir, "benchboard.yml");
    writeFileSync(file, "version: 1\nproject: billing\nthresholds: []\n");
    const env = { BENCHBOARD_URL: "http://127.0.0.1:9", BENCHBOARD_TOKEN: TOKEN };
    const fromEnv = await benchboard(["apply", "-f", file], { ...env, BENCHBOARD_PROJECT: "checkout-api" });
    expect(fromEnv).toMatchObject({ code: 2, stdout: "" });
    expect(fromEnv.stderr.trim()).toBe(
      `benchboard: ${file} names project "billing" (project:) but BENCHBOARD_PROJECT is "checkout-api": make them agree, or drop one`,
    );
    const fromFlag = await benchboard(["apply", "-f", file, "--project", "checkout-api"], env);
    expect(fromFlag.code).toBe(2);
    expect(fromFlag.stderr).toContain('but --project is "checkout-api"');
  });

  it("list the server commands in the help", async () => {
    const help = await benchboard(["--help"]);
    expect(help.code).toBe(0);
    for (const command of ["upload [options] <file>", "run [options] <scenario>", "compare [options]"]) {
      expect(help.stdout).toContain(command);
    }
    const upload = await benchboard(["upload", "--help"]);
    expect(upload.stdout).toContain("--config-json <json>");
    expect(upload.stdout).toContain("env BENCHBOARD_URL");
  });
});
