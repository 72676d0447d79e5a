/**
 * A status badge as SVG, in the two-part shape README badges have: a label on grey, a message
 * on the verdict's color. Text is escaped; widths are estimated from character classes (Verdana
 * 11px), close enough for the short texts a badge holds.
 */

export type BadgeVerdict = "pass" | "fail" | "not_measured" | "none";

const COLORS: Record<BadgeVerdict, string> = {
  pass: "#2e7d32",
  fail: "#c62828",
  not_measured: "#b26a00",
  none: "#1565c0",
};

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function textWidth(text: string): number {
  let width = 0;
  for (const ch of text) {
    if (/[ilj.,:;!|'`()[\]]/.test(ch)) width += 3.5;
    else if (/[mwMW@%]/.test(ch)) width += 10;
    else if (/[A-Z0-9]/.test(ch)) width += 7.5;
    else width += 6.5;
  }
  return Math.ceil(width);
}

export function badgeSvg(label: string, message: string, verdict: BadgeVerdict | "unknown"): string {
  const l = label.slice(0, 80);
  const m = message.slice(0, 80);
  const lw = textWidth(l) + 12;
  const mw = textWidth(m) + 12;
  const color = verdict === "unknown" ? "#757575" : COLORS[verdict];
  const title = escapeXml(`${l}: ${m}`);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${lw + mw}" height="20" role="img" aria-label="${title}"><title>${title}</title><rect width="${lw}" height="20" fill="#555"/><rect x="${lw}" width="${mw}" height="20" fill="${color}"/><g fill="#fff" text-anchor="middle" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11"><text x="${lw / 2}" y="14">${escapeXml(l)}</text><text x="${lw + mw / 2}" y="14">${escapeXml(m)}</text></g></svg>`;
}
