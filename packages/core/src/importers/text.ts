/**
 * Helpers for line-oriented text formats (wrk, hey, ab, drill, and any text or line-delimited
 * format added later). Everything here runs in time linear in the input: uploads are hostile,
 * and a regular expression that backtracks over a long run of spaces turns a 40 kB upload into
 * seconds of CPU. New importers should read their input through `splitLines` (or
 * `forEachLine`) so the line-length cap applies to them too.
 */
import { ImportError } from "./import-error";

/**
 * Longest line a text importer reads. Real tool output stays far below it (the longest lines
 * are URLs and error messages); a longer line is refused with its number.
 */
export const MAX_LINE_CHARS = 8_192;

// CSI sequences (colours, cursor moves) as a terminal-bound tool writes them.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching the ESC byte is the point
const ANSI_ESCAPE = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;

export function stripAnsi(text: string): string {
  return text.includes("\u001b") ? text.replace(ANSI_ESCAPE, "") : text;
}

export interface TextLine {
  /** 1-based line number in the input, as an editor shows it. */
  no: number;
  /** The line without ANSI codes, carriage return or trailing whitespace. */
  text: string;
}

export interface LineOptions {
  /** Format named in the error for an over-long line. */
  format?: string;
  /** Longest line accepted (characters, before ANSI codes are removed). */
  maxLineChars?: number;
}

/**
 * Calls `visit` with each line of the input (BOM and ANSI codes removed, trailing whitespace
 * trimmed), refusing a line longer than the cap with an ImportError naming it. Linear time.
 */
export function forEachLine(input: string, visit: (line: TextLine) => void, options: LineOptions = {}): void {
  const max = options.maxLineChars ?? MAX_LINE_CHARS;
  let start = input.startsWith("\uFEFF") ? 1 : 0;
  let no = 1;
  for (;;) {
    const end = input.indexOf("\n", start);
    const stop = end === -1 ? input.length : end;
    if (stop - start > max) {
      throw new ImportError(
        options.format ?? "input",
        `the line is longer than ${max.toLocaleString("en-US")} characters: not the tool's output`,
        { line: no },
      );
    }
    visit({ no, text: stripAnsi(input.slice(start, stop)).trimEnd() });
    if (end === -1) return;
    start = end + 1;
    no++;
  }
}

/** Every line of the input (see `forEachLine`). */
export function splitLines(input: string, options: LineOptions = {}): TextLine[] {
  const lines: TextLine[] = [];
  forEachLine(input, (line) => lines.push(line), options);
  return lines;
}

/** The whitespace-separated words of a line, without empty ones. Linear time. */
export function words(text: string): string[] {
  return text.split(/\s+/).filter((w) => w !== "");
}

/** Number of the last non-blank line: where a truncated output stops. */
export function lastLineNo(lines: readonly TextLine[]): number {
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i];
    if (line && line.text.trim() !== "") return line.no;
  }
  return 1;
}

const DECIMAL = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?$/i;

/** A plain decimal number; `nan`/`-nan` (as C's printf writes it) give NaN; anything else undefined. */
export function parseDecimal(token: string): number | undefined {
  const t = token.trim();
  if (t.length > 64) return undefined;
  if (/^[-+]?nan$/i.test(t)) return Number.NaN;
  if (/^[-+]?inf(inity)?$/i.test(t)) return t.startsWith("-") ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  return DECIMAL.test(t) ? Number(t) : undefined;
}

/** Lines the importer did not recognise, kept so nothing a tool printed is lost. */
export function unrecognized(lines: readonly TextLine[]): { line: number; text: string }[] {
  return lines.filter((l) => l.text.trim() !== "").map((l) => ({ line: l.no, text: l.text.trim() }));
}
