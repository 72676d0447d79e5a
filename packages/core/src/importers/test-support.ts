import { readFileSync } from "node:fs";
import { expect } from "vitest";
import { ImportError } from "./import-error";

/** A fixture's text, by path under `fixtures/`. */
export function fixture(path: string): string {
  return readFileSync(new URL(`./fixtures/${path}`, import.meta.url), "utf8");
}

/** The ImportError `run` throws; fails the test when it throws anything else or nothing. */
export function importErrorOf(run: () => unknown): ImportError {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(ImportError);
    return err as ImportError;
  }
  throw new Error("expected an ImportError, but nothing was thrown");
}

/** The text with its lines from `from` (1-based) on removed, as a truncated output would be. */
export function truncateAtLine(text: string, from: number): string {
  return `${text
    .split("\n")
    .slice(0, from - 1)
    .join("\n")}\n`;
}

/** The text with one line (1-based) replaced. */
export function replaceLine(text: string, lineNo: number, replacement: string): string {
  const lines = text.split("\n");
  lines[lineNo - 1] = replacement;
  return lines.join("\n");
}
