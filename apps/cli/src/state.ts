import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { CliIo } from "./io";

/**
 * The last run this checkout uploaded or launched, so `benchboard compare` after `benchboard
 * upload` in the same CI job needs no run id. Kept in the working directory (CI steps of one job
 * share it) unless BENCHBOARD_STATE_FILE names another file.
 */
export function stateFile(io: CliIo): string {
  return path.resolve(io.env.BENCHBOARD_STATE_FILE || path.join(".benchboard", "last-run.json"));
}

/**
 * Written beside the file and renamed over it: a step (or a script watching for a run to start)
 * that reads the file while a run is recorded sees the previous run or this one, never a
 * half-written file.
 */
export async function rememberRun(io: CliIo, run: { id: string; url: string }): Promise<void> {
  const file = stateFile(io);
  const partial = `${file}.${process.pid}.partial`;
  try {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(partial, `${JSON.stringify({ id: run.id, url: run.url })}\n`);
    await rename(partial, file);
  } catch (err) {
    await rm(partial, { force: true }).catch(() => undefined);
    // The run is stored either way; only a later `compare` without --head will miss it.
    io.stderr(`benchboard: note: could not record the run in ${file}: ${(err as Error).message}\n`);
  }
}

export async function lastRunId(io: CliIo): Promise<string | null> {
  try {
    const saved = JSON.parse(await readFile(stateFile(io), "utf8")) as { id?: unknown };
    return typeof saved.id === "string" ? saved.id : null;
  } catch {
    return null;
  }
}
