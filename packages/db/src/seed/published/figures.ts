import type { TPublishedFigure } from "@benchboard/core";

/**
 * Helpers for transcribing printed figures: the number, in the metric registry's unit, and its
 * rounding (one unit of the last printed digit), so checks can tell rounding from disagreement.
 */
export type FigureUnit = "ms" | "count" | "rate" | "percent" | "bytes" | "fraction" | "ratio";

export interface Fig {
  /** As printed. */
  text: string;
  value: number;
  /** One unit of the last printed digit, in the same unit as `value`. */
  step: number;
  /** "~35–40": the printed range; `value` is its upper end (a peak). */
  range?: [number, number];
  /** Printed with "~" or "≈". */
  approximate?: boolean;
}

const TIME_MS: Record<string, number> = { ns: 1e-6, µs: 1e-3, us: 1e-3, ms: 1, s: 1000 };
const BYTES: Record<string, number> = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 };

function decimals(numberText: string): number {
  const dot = numberText.indexOf(".");
  return dot < 0 ? 0 : numberText.length - dot - 1;
}

/** Parse a printed figure such as "2.12s", "47.13 µs", "1,312.79 MB", "~35–40", "100.00%", "+7.5x". */
export function fig(text: string, unit: FigureUnit): Fig {
  const m = /^[~≈]?\s*([+\-−]?[\d,]*\.?\d+)(?:\s*[–-]\s*([\d,]*\.?\d+))?\s*([a-zA-Zµ%/#[\]. ]*)$/.exec(text.trim());
  if (!m) throw new Error(`cannot read the figure "${text}"`);
  const numberText = m[1]!.replace(/,/g, "").replace("−", "-");
  const upperText = m[2]?.replace(/,/g, "");
  const suffix = (m[3] ?? "").trim().split(/[\s/]/)[0] ?? "";
  let factor = 1;
  if (unit === "ms") {
    factor = TIME_MS[suffix] ?? Number.NaN;
  } else if (unit === "bytes") {
    factor = BYTES[suffix] ?? Number.NaN;
  } else if (unit === "fraction") {
    factor = 0.01;
  }
  if (Number.isNaN(factor)) throw new Error(`unknown unit in "${text}"`);
  const value = Number(numberText) * factor;
  const step = 10 ** -decimals(numberText) * factor;
  const approximate = /^[~≈]/.test(text.trim()) ? { approximate: true } : {};
  if (upperText !== undefined) {
    const upper = Number(upperText) * factor;
    return { text, value: upper, step, range: [value, upper], ...approximate };
  }
  return { text, value, step, ...approximate };
}

/** Shorthands keyed by unit. */
export const ms = (text: string) => fig(text, "ms");
export const count = (text: string) => fig(text, "count");
export const rate = (text: string) => fig(text, "rate");
export const pct = (text: string) => fig(text, "percent");
export const bytes = (text: string) => fig(text, "bytes");

// Figures name runs by their seed key ("chat#8"); the loader swaps in run ids.

export function valueFigure(
  label: string,
  runKey: string,
  metric: string,
  printed: Fig,
  note?: string,
): TPublishedFigure {
  return {
    kind: "value",
    label,
    runId: runKey,
    metric,
    text: printed.text,
    value: printed.value,
    step: printed.step,
    ...(printed.range ? { range: printed.range } : {}),
    ...(printed.approximate ? { approximate: true } : {}),
    ...(note ? { note } : {}),
  };
}

/**
 * A printed change. `signed` is the change as a signed percentage ("-81%"); `text` is how the
 * document printed it ("81% faster").
 */
export function deltaFigure(
  label: string,
  runKey: string,
  baseRunKey: string,
  metric: string,
  text: string,
  signed: string,
  note?: string,
): TPublishedFigure {
  const f = fig(signed, "fraction");
  return {
    kind: "delta",
    label,
    runId: runKey,
    baseRunId: baseRunKey,
    metric,
    text,
    value: f.value,
    step: f.step,
    ...(note ? { note } : {}),
  };
}

export function ratioFigure(
  label: string,
  runKey: string,
  baseRunKey: string,
  metric: string,
  text: string,
  ratio: string,
  note?: string,
): TPublishedFigure {
  const f = fig(ratio, "ratio");
  return {
    kind: "ratio",
    label,
    runId: runKey,
    baseRunId: baseRunKey,
    metric,
    text,
    value: f.value,
    step: f.step,
    ...(note ? { note } : {}),
  };
}

export function configFigure(
  label: string,
  runKey: string,
  path: string,
  text: string,
  value: string | number | boolean,
  note?: string,
): TPublishedFigure {
  return { kind: "config", label, runId: runKey, path, text, value, ...(note ? { note } : {}) };
}

export function verdictFigure(
  label: string,
  runKey: string,
  text: string,
  value: boolean,
  note?: string,
): TPublishedFigure {
  return { kind: "verdict", label, runId: runKey, text, value, ...(note ? { note } : {}) };
}

export function bestFigure(label: string, runKey: string, text: string, note?: string): TPublishedFigure {
  return { kind: "best", label, runId: runKey, text, ...(note ? { note } : {}) };
}
