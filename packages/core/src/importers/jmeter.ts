import { ImportError } from "./import-error";
import type { TNormalizedRun } from "./normalized-run";
import { RequestAggregator } from "./request-stream";
import { forEachLine } from "./text";

const FORMAT = "jmeter";

/** A JTL line holds one sample; response messages and URLs keep it far below this. */
const MAX_JTL_LINE = 64_000;

/**
 * JMeter's JTL results in CSV (the default `jmeter.save.saveservice.output_format=csv`), with its
 * header line: one row per sample. Needs the columns `timeStamp` (epoch ms, or a date JMeter
 * was told to write), `elapsed` (ms) and `success`; `responseCode`, `failureMessage`, `bytes`
 * and `sentBytes` are read when present. Every sample is recorded in a latency histogram, so
 * percentiles come from all of them. Quoted fields (JMeter quotes those holding the delimiter)
 * must end on their line.
 */
export function parseJmeter(text: string): TNormalizedRun {
  const aggregator = new RequestAggregator("jmeter", 0);
  let columns: Map<string, number> | null = null;
  let lastLine = 1;
  forEachLine(
    text,
    ({ no, text: line }) => {
      lastLine = no;
      if (line.trim() === "") return;
      const cells = csvCells(line, no);
      if (!columns) {
        columns = new Map(cells.map((name, i) => [name.trim(), i]));
        for (const required of ["timeStamp", "elapsed", "success"]) {
          if (!columns.has(required)) {
            throw new ImportError(
              FORMAT,
              `the header has no ${required} column: expected a JTL written as CSV with its header line (timeStamp,elapsed,label,responseCode,…,success,…)`,
              { line: no },
            );
          }
        }
        return;
      }
      const at = (name: string) => {
        const index = columns!.get(name);
        return index === undefined ? undefined : cells[index];
      };
      if (cells.length < columns.size) {
        throw new ImportError(FORMAT, `has ${cells.length} fields, the header ${columns.size}`, { line: no });
      }
      const stamp = at("timeStamp")!;
      const atMs = /^\d+$/.test(stamp) ? Number(stamp) : Date.parse(stamp);
      if (!Number.isFinite(atMs)) {
        throw new ImportError(
          FORMAT,
          `timeStamp: expected epoch milliseconds or a date, got ${JSON.stringify(stamp)}`,
          {
            line: no,
          },
        );
      }
      const elapsed = Number(at("elapsed"));
      if (!Number.isFinite(elapsed) || elapsed < 0) {
        throw new ImportError(FORMAT, `elapsed: expected milliseconds, got ${JSON.stringify(at("elapsed"))}`, {
          line: no,
        });
      }
      const successText = at("success")!.toLowerCase();
      if (successText !== "true" && successText !== "false") {
        throw new ImportError(FORMAT, `success: expected true or false, got ${JSON.stringify(at("success"))}`, {
          line: no,
        });
      }
      const codeText = at("responseCode") ?? "";
      // "Non HTTP response code: java.net.ConnectException" and the like: no response at all.
      const status = /^\d{3}$/.test(codeText) ? Number(codeText) : 0;
      const ok = successText === "true";
      const responseMessage = at("responseMessage") ?? "";
      const message =
        at("failureMessage") || (status === 0 ? [codeText, responseMessage].filter(Boolean).join(" — ") : "") || "";
      const bytesIn = Number(at("bytes") ?? Number.NaN);
      const bytesOut = Number(at("sentBytes") ?? Number.NaN);
      aggregator.add({
        atMs,
        latencyMs: elapsed,
        status,
        // A sample JMeter judged failed (an assertion, a status) is a failure even with a 2xx.
        ...(!ok ? { error: message || `failed (${codeText || "no response code"})` } : {}),
        ...(Number.isFinite(bytesIn) ? { bytesIn } : {}),
        ...(Number.isFinite(bytesOut) ? { bytesOut } : {}),
      });
    },
    { format: FORMAT, maxLineChars: MAX_JTL_LINE },
  );
  if (!columns) throw new ImportError(FORMAT, "is empty: expected a header line and one line per sample", { line: 1 });
  if (aggregator.totalRequests === 0) throw new ImportError(FORMAT, "has a header but no samples", { line: lastLine });
  const run = aggregator.result();
  return { ...run, scenario: { name: "jmeter", engine: "http-closed" } };
}

/** The fields of one CSV line (RFC 4180 quoting), in one pass. */
export function csvCells(line: string, lineNo: number, delimiter = ","): string[] {
  const cells: string[] = [];
  let i = 0;
  for (;;) {
    if (line[i] === '"') {
      let value = "";
      let j = i + 1;
      for (;;) {
        const quote = line.indexOf('"', j);
        if (quote === -1) {
          throw new ImportError(FORMAT, "a quoted field does not end on its line", { line: lineNo });
        }
        value += line.slice(j, quote);
        if (line[quote + 1] === '"') {
          value += '"';
          j = quote + 2;
          continue;
        }
        i = quote + 1;
        break;
      }
      cells.push(value);
      if (i >= line.length) return cells;
      if (line[i] !== delimiter) {
        throw new ImportError(FORMAT, `expected ${delimiter} after a quoted field, at character ${i + 1}`, {
          line: lineNo,
        });
      }
      i++;
      continue;
    }
    const end = line.indexOf(delimiter, i);
    if (end === -1) {
      cells.push(line.slice(i));
      return cells;
    }
    cells.push(line.slice(i, end));
    i = end + 1;
  }
}
