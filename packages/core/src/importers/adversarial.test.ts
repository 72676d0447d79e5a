import { describe, expect, it } from "vitest";
import { ImportError } from "./import-error";
import { detectFormat, importRun } from "./index";
import { MAX_LINE_CHARS } from "./text";

const TEXT_FORMATS = ["wrk", "hey", "ab", "drill"] as const;

/** Lines just under the cap that make a backtracking pattern work quadratically per line. */
const ADVERSARIAL_LINES: Record<string, string> = {
  "spaces then x": `${" ".repeat(MAX_LINE_CHARS - 1)}x`,
  "a drill label then spaces": `Total requests${" ".repeat(MAX_LINE_CHARS - 20)}x`,
  "words before a URL-like word": `${"a ".repeat((MAX_LINE_CHARS - 10) / 2)}x`,
};

function repeatToBytes(line: string, bytes: number): string {
  return `${line}\n`.repeat(Math.ceil(bytes / (line.length + 1)));
}

function elapsedMs(fn: () => unknown): number {
  const t0 = performance.now();
  try {
    fn();
  } catch (err) {
    if (!(err instanceof ImportError)) throw err;
  }
  return performance.now() - t0;
}

describe("text importers on hostile input", () => {
  // A linear parser reads these 4 MB in well under a second; the bound is loose so that a
  // loaded machine passes, and a quadratic parser (tens of seconds here) fails.
  it.each(
    TEXT_FORMATS.flatMap((format) => Object.entries(ADVERSARIAL_LINES).map(([name, line]) => [format, name, line])),
  )("%s reads 4 MB of '%s' lines without backtracking", (format, _name, line) => {
    const text = repeatToBytes(line as string, 4_000_000);
    expect(elapsedMs(() => importRun(format as (typeof TEXT_FORMATS)[number], text))).toBeLessThan(3_000);
  });

  it("detects formats in linear time, blank lines included", () => {
    const text = `${" \n".repeat(1_000_000)}x`;
    expect(elapsedMs(() => detectFormat(text))).toBeLessThan(3_000);
    expect(detectFormat(text)).toBeUndefined();
  });

  it.each(TEXT_FORMATS)("%s refuses a line longer than the cap, naming the line", (format) => {
    const text = `first line\nsecond line\n${"x".repeat(MAX_LINE_CHARS + 1)}\n`;
    try {
      importRun(format, text);
      expect.unreachable("an over-long line was accepted");
    } catch (err) {
      expect(err).toBeInstanceOf(ImportError);
      expect((err as ImportError).line).toBe(3);
      expect((err as ImportError).format).toBe(format);
      expect((err as ImportError).message).toMatch(/line 3: the line is longer than 8,192 characters/);
    }
  });
});
