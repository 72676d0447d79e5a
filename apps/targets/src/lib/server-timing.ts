/**
 * `Server-Timing` (W3C Server Timing): `name;dur=<ms>` entries separated by commas. Durations are
 * milliseconds; the gateway's stages run from nanoseconds to seconds, so six decimals are kept
 * and exponent notation is avoided (not every parser reads `1e-7`).
 */

export interface TimingEntry {
  name: string;
  /** Milliseconds. */
  dur?: number;
  desc?: string;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

export function formatDurationMs(ms: number): string {
  if (!Number.isFinite(ms) || ms <= 0) return "0";
  const fixed = ms.toFixed(6).replace(/\.?0+$/, "");
  return fixed === "" ? "0" : fixed;
}

export function formatServerTiming(entries: readonly TimingEntry[]): string {
  return entries
    .map((entry) => {
      if (!TOKEN.test(entry.name)) throw new Error(`invalid Server-Timing name ${entry.name}`);
      let text = entry.name;
      if (entry.dur !== undefined) text += `;dur=${formatDurationMs(entry.dur)}`;
      if (entry.desc !== undefined) text += `;desc="${entry.desc.replace(/["\\]/g, "\\$&")}"`;
      return text;
    })
    .join(", ");
}

/**
 * Parse a header value strictly: a malformed entry throws instead of being skipped, because the
 * tests use this to prove the gateway's header is well formed.
 */
export function parseServerTiming(header: string): TimingEntry[] {
  const entries: TimingEntry[] = [];
  for (const part of splitOutsideQuotes(header, ",")) {
    const trimmed = part.trim();
    if (trimmed === "") continue;
    const [nameText, ...params] = splitOutsideQuotes(trimmed, ";").map((p) => p.trim());
    if (!nameText || !TOKEN.test(nameText)) throw new Error(`bad Server-Timing metric name in "${trimmed}"`);
    const entry: TimingEntry = { name: nameText };
    for (const param of params) {
      const eq = param.indexOf("=");
      const key = (eq < 0 ? param : param.slice(0, eq)).trim();
      if (!TOKEN.test(key)) throw new Error(`bad Server-Timing parameter in "${trimmed}"`);
      let value = eq < 0 ? "" : param.slice(eq + 1).trim();
      if (value.startsWith('"')) {
        if (!value.endsWith('"') || value.length < 2) throw new Error(`unterminated quoted value in "${trimmed}"`);
        value = value.slice(1, -1).replace(/\\(.)/g, "$1");
      } else if (value !== "" && !TOKEN.test(value)) {
        throw new Error(`bad Server-Timing value in "${trimmed}"`);
      }
      if (key === "dur" && entry.dur === undefined) {
        const dur = Number(value);
        if (value === "" || !Number.isFinite(dur)) throw new Error(`dur is not a number in "${trimmed}"`);
        entry.dur = dur;
      } else if (key === "desc" && entry.desc === undefined) {
        entry.desc = value;
      }
    }
    entries.push(entry);
  }
  return entries;
}

function splitOutsideQuotes(text: string, separator: string): string[] {
  const parts: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "\\" && quoted) {
      i++;
    } else if (ch === '"') {
      quoted = !quoted;
    } else if (ch === separator && !quoted) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}
