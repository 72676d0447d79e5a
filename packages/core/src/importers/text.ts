/** Helpers for the line-oriented text formats (wrk, hey, ab, drill). */

// CSI sequences (colours, cursor moves) as a terminal-bound tool writes them.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching the ESC byte is the point
const ANSI_ESCAPE = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;

export function stripAnsi(text: string): string {
  return text.replace(ANSI_ESCAPE, "");
}

export interface TextLine {
  /** 1-based line number in the input, as an editor shows it. */
  no: number;
  /** The line without ANSI codes, carriage return or trailing whitespace. */
  text: string;
}

export function splitLines(input: string): TextLine[] {
  const withoutBom = input.startsWith("\uFEFF") ? input.slice(1) : input;
  return stripAnsi(withoutBom)
    .split("\n")
    .map((raw, i) => ({ no: i + 1, text: raw.replace(/\s+$/, "") }));
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
  if (/^[-+]?nan$/i.test(t)) return Number.NaN;
  if (/^[-+]?inf(inity)?$/i.test(t)) return t.startsWith("-") ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  return DECIMAL.test(t) ? Number(t) : undefined;
}

/** Lines the importer did not recognise, kept so nothing a tool printed is lost. */
export function unrecognized(lines: readonly TextLine[]): { line: number; text: string }[] {
  return lines.filter((l) => l.text.trim() !== "").map((l) => ({ line: l.no, text: l.text.trim() }));
}
