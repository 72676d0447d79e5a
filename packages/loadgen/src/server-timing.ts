/** One entry of a `Server-Timing` header. `dur` is in milliseconds. */
export interface ServerTimingEntry {
  name: string;
  dur?: number;
  desc?: string;
}

/**
 * Parse a `Server-Timing` header value (W3C Server Timing): comma-separated metrics, each
 * `name` followed by `;param` or `;param=value` where value is a token or a quoted string.
 * Several headers joined with ", " parse as one list. Malformed entries are skipped rather than
 * failing the whole header, because a partly broken header still carries useful stages.
 */
export function parseServerTiming(header: string): ServerTimingEntry[] {
  const out: ServerTimingEntry[] = [];
  const len = header.length;
  let i = 0;
  while (i < len) {
    i = skipSpaces(header, i);
    const nameStart = i;
    while (i < len && isTokenChar(header.charCodeAt(i))) i++;
    const name = header.slice(nameStart, i);
    const entry: ServerTimingEntry = { name };
    let broken = name.length === 0;
    i = skipSpaces(header, i);
    while (i < len && header[i] === ";") {
      i = skipSpaces(header, i + 1);
      const paramStart = i;
      while (i < len && isTokenChar(header.charCodeAt(i))) i++;
      const param = header.slice(paramStart, i).toLowerCase();
      i = skipSpaces(header, i);
      let value: string | undefined;
      if (header[i] === "=") {
        i = skipSpaces(header, i + 1);
        if (header[i] === '"') {
          const quoted = readQuoted(header, i);
          value = quoted.value;
          i = quoted.end;
        } else {
          const valueStart = i;
          while (i < len && isTokenChar(header.charCodeAt(i))) i++;
          value = header.slice(valueStart, i);
        }
        i = skipSpaces(header, i);
      }
      if (param.length === 0) broken = true;
      // The spec keeps the first occurrence of a parameter and ignores repeats.
      if (param === "dur" && entry.dur === undefined && value !== undefined) {
        const dur = Number(value);
        if (Number.isFinite(dur) && value.trim() !== "") entry.dur = dur;
      } else if (param === "desc" && entry.desc === undefined && value !== undefined) {
        entry.desc = value;
      }
    }
    if (i < len && header[i] !== ",") {
      broken = true;
      while (i < len && header[i] !== ",") {
        if (header[i] === '"') i = readQuoted(header, i).end;
        else i++;
      }
    }
    if (!broken) out.push(entry);
    i++; // past the comma
  }
  return out;
}

function skipSpaces(s: string, i: number): number {
  while (i < s.length && (s[i] === " " || s[i] === "\t")) i++;
  return i;
}

function readQuoted(s: string, start: number): { value: string; end: number } {
  let value = "";
  let i = start + 1;
  while (i < s.length) {
    const c = s[i];
    if (c === "\\" && i + 1 < s.length) {
      value += s[i + 1];
      i += 2;
    } else if (c === '"') {
      return { value, end: i + 1 };
    } else {
      value += c;
      i++;
    }
  }
  return { value, end: i };
}

// RFC 9110 tchar
function isTokenChar(c: number): boolean {
  return (
    (c >= 0x30 && c <= 0x39) ||
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x61 && c <= 0x7a) ||
    c === 0x21 ||
    (c >= 0x23 && c <= 0x27) ||
    c === 0x2a ||
    c === 0x2b ||
    c === 0x2d ||
    c === 0x2e ||
    c === 0x5e ||
    c === 0x5f ||
    c === 0x60 ||
    c === 0x7c ||
    c === 0x7e
  );
}
