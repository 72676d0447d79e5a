import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { importRun, importRuns } from "@benchboard/core/importers/index";
import { describe, expect, it } from "vitest";

const BIN = fileURLToPath(new URL("../bin/benchboard.js", import.meta.url));
const FIXTURES = fileURLToPath(new URL("../../../packages/core/src/importers/fixtures/", import.meta.url));

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real `benchboard` command as CI would, optionally feeding standard input. */
function benchboard(args: string[], stdin?: string): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: FIXTURES, timeout: 25_000 },
      (err, stdout, stderr) => {
        if (err && typeof err.code !== "number") reject(err);
        else resolve({ code: typeof err?.code === "number" ? err.code : 0, stdout, stderr });
      },
    );
    child.stdin?.end(stdin ?? "");
  });
}

const fixture = (path: string) => readFileSync(`${FIXTURES}${path}`, "utf8");

describe("benchboard parse", () => {
  it("prints the normalized run of a file in the given format", async () => {
    const result = await benchboard(["parse", "--format", "wrk", "wrk/latency.txt"]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(JSON.parse(result.stdout)).toEqual(importRun("wrk", fixture("wrk/latency.txt")));
    // Pretty-printed by default, so a CI log stays readable.
    expect(result.stdout).toContain('\n  "schemaVersion": 1,\n');
  });

  it("detects the format with --format auto (the default)", async () => {
    const result = await benchboard(["parse", "k6/summary-export.json", "--compact"]);
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split("\n")).toHaveLength(1);
    const run = JSON.parse(result.stdout);
    expect(run.tool).toEqual({ name: "k6" });
    expect(run.result.metrics.requests).toBe(21169);
    expect(run.result.toolThresholds).toContainEqual({
      metric: "http_req_failed",
      expression: "rate<0.01",
      passed: false,
    });
  });

  it("reads standard input for -", async () => {
    const result = await benchboard(["parse", "-f", "hey", "-"], fixture("hey/mixed.txt"));
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(importRun("hey", fixture("hey/mixed.txt")));
  });

  it("accepts wrk2 as a format name", async () => {
    const result = await benchboard(["parse", "--format", "wrk2", "wrk2/latency.txt", "--compact"]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).tool).toEqual({ name: "wrk2" });
  });

  it("picks one provider of a bifrost-benchmarking file, or prints them all", async () => {
    const one = await benchboard(["parse", "bifrost/results.json", "--provider", "litellm"]);
    expect(one.code).toBe(0);
    expect(JSON.parse(one.stdout)).toEqual(
      importRun("bifrost", fixture("bifrost/results.json"), { provider: "litellm" }),
    );

    const all = await benchboard(["parse", "bifrost/results.json", "--all", "--compact"]);
    expect(all.code).toBe(0);
    expect(JSON.parse(all.stdout)).toEqual(importRuns("bifrost", fixture("bifrost/results.json")));
  });

  describe("bad input exits with code 2 and a clear message on stderr", () => {
    it("malformed output: names the file and the line", async () => {
      const truncated = fixture("wrk/latency.txt").split("\n").slice(0, 11).join("\n");
      const result = await benchboard(["parse", "-f", "wrk", "-"], truncated);
      expect(result).toEqual({
        code: 2,
        stdout: "",
        stderr: 'benchboard: standard input: wrk output, line 11: no "Requests/sec:" line (output truncated?)\n',
      });
    });

    it("the wrong format for the file: names the field or line", async () => {
      const result = await benchboard(["parse", "--format", "vegeta", "ab/basic.txt"]);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toBe(
        'benchboard: ab/basic.txt: vegeta JSON report, line 1: not JSON: expected "{", got "This is ApacheBench, Version 2.3 <$Revis…"\n',
      );
    });

    it("an unrecognisable file with --format auto", async () => {
      const result = await benchboard(["parse", "-"], "just some text\n");
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^benchboard: standard input: input: could not tell the format/);
    });

    it("several bifrost providers and no choice", async () => {
      const result = await benchboard(["parse", "bifrost/results.json"]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("holds results for 3 providers (bifrost, litellm, openai)");
      expect(result.stderr).toContain("use --provider <name>, or --all");
    });

    it("a missing file", async () => {
      const result = await benchboard(["parse", "no/such/file.txt"]);
      expect(result).toEqual({
        code: 2,
        stdout: "",
        stderr: "benchboard: cannot read no/such/file.txt: no such file\n",
      });
    });

    it("an unknown format", async () => {
      const result = await benchboard(["parse", "--format", "locust", "wrk/latency.txt"]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        "argument 'locust' is invalid. expected auto, k6, drill, wrk, hey, ab, vegeta, bifrost, k6-json, vegeta-results, oha, gatling, jmeter",
      );
    });

    it("a missing argument or an unknown command", async () => {
      expect((await benchboard(["parse"])).code).toBe(2);
      const unknown = await benchboard(["frobnicate"]);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain("unknown command 'frobnicate'");
    });
  });

  it("shows help and version with exit code 0", async () => {
    const help = await benchboard(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("parse [options] <file>");
    const parseHelp = await benchboard(["parse", "--help"]);
    expect(parseHelp.code).toBe(0);
    expect(parseHelp.stdout).toContain("--provider <name>");
    const version = await benchboard(["--version"]);
    expect(version).toEqual({ code: 0, stdout: "0.1.0\n", stderr: "" });
  });
});
