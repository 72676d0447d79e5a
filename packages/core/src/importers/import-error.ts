/** Where a problem was found: a line of a text format, or a field path of a JSON format. */
export interface ImportErrorLocation {
  line?: number;
  field?: string;
}

/**
 * Bad input for an importer. The message names the format and the line (text formats) or the
 * field (JSON formats), so a CI log alone tells what to fix.
 */
export class ImportError extends Error {
  override readonly name = "ImportError";
  readonly format: string;
  readonly line: number | undefined;
  readonly field: string | undefined;

  constructor(format: string, detail: string, location: ImportErrorLocation = {}) {
    super(`${describeFormat(format)}${describeLocation(location)}: ${detail}`);
    this.format = format;
    this.line = location.line;
    this.field = location.field;
  }
}

const FORMAT_LABELS: Record<string, string> = {
  k6: "k6 summary",
  drill: "drill --stats output",
  wrk: "wrk output",
  hey: "hey output",
  ab: "ab output",
  vegeta: "vegeta JSON report",
  bifrost: "bifrost-benchmarking results",
  native: "Benchboard run JSON",
};

function describeFormat(format: string): string {
  return FORMAT_LABELS[format] ?? format;
}

function describeLocation({ line, field }: ImportErrorLocation): string {
  if (line !== undefined) return `, line ${line}`;
  if (field !== undefined) return `, field "${field}"`;
  return "";
}
