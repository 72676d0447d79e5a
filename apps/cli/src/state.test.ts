import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { CliIo } from "./io";
import { lastRunId, rememberRun } from "./state";

function ioFor(file: string, errors: string[] = []): CliIo {
  return {
    stdout: () => undefined,
    stderr: (text) => errors.push(text),
    readStdin: async () => "",
    env: { BENCHBOARD_STATE_FILE: file },
    stderrIsTty: false,
  };
}

describe("the last run's file", () => {
  it("is replaced whole: a reader that opened the previous one still reads all of it", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "benchboard-state-"));
    const file = path.join(dir, "nested", "last-run.json");
    const io = ioFor(file);
    await rememberRun(io, { id: "run-one", url: "http://127.0.0.1:3000/runs/run-one" });
    expect(await lastRunId(io)).toBe("run-one");
    // Written in place, the second write would truncate what this descriptor reads.
    const fd = openSync(file, "r");
    try {
      await rememberRun(io, { id: "run-two", url: "http://127.0.0.1:3000/runs/run-two" });
      const buffer = Buffer.alloc(4096);
      const read = readSync(fd, buffer, 0, buffer.length, 0);
      expect(JSON.parse(buffer.subarray(0, read).toString("utf8"))).toEqual({
        id: "run-one",
        url: "http://127.0.0.1:3000/runs/run-one",
      });
    } finally {
      closeSync(fd);
    }
    expect(JSON.parse(readFileSync(file, "utf8")).id).toBe("run-two");
    expect(await lastRunId(io)).toBe("run-two");
    // Nothing left beside it.
    expect(readdirSync(path.dirname(file))).toEqual(["last-run.json"]);
  });

  it("notes a file it cannot write, leaves nothing half-written, and keeps going", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "benchboard-state-"));
    // A directory where the file should be: the rename fails.
    const file = path.join(dir, "last-run.json");
    mkdirSync(file);
    const errors: string[] = [];
    await rememberRun(ioFor(file, errors), { id: "run-one", url: "http://127.0.0.1:3000/runs/run-one" });
    expect(errors.join("")).toMatch(/could not record the run in .*last-run\.json/);
    expect(readdirSync(dir)).toEqual(["last-run.json"]);
    expect(await lastRunId(ioFor(file))).toBeNull();
  });
});
