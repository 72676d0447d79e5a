import { z } from "zod";
import { formatDeltaPct } from "./compare";
import { DERIVED_KEYS, type DerivedContext, deriveBounds, describeDerivation, type Interval } from "./derived";
import { formatMetric } from "./metrics";
import { formatSweepValue, type RunSnapshots, readParameter } from "./sweep";
import { approximateInterval, type ThresholdsOutcome } from "./thresholds";

/**
 * Figures as a document published them (a benchmark write-up's table), kept beside the runs they
 * describe and checked against what Benchboard computes from those runs. A published figure is
 * rounded, and so are the inputs it was derived from: it agrees when some choice of inputs within
 * their rounding gives a value within the figure's own rounding. Anything else is a disagreement,
 * shown with both numbers.
 */

const ZBase = z.object({
  /** Row label as the document has it, e.g. "Queue Wait Time". */
  label: z.string().min(1),
  /** The figure as printed, e.g. "47.13 µs", "+81% slower", "~35–40". */
  text: z.string(),
  runId: z.string().min(1),
  /** Why the figure is the way it is, when the transcription had to interpret it. */
  note: z.string().optional(),
});

export const ZPublishedFigure = z.discriminatedUnion("kind", [
  ZBase.extend({
    kind: z.literal("value"),
    metric: z.string().min(1),
    /** In the metric's unit (latency in ms, sizes in bytes, rates per second). */
    value: z.number(),
    /** One unit of the last printed digit, in the metric's unit (0 for exact counts). */
    step: z.number().min(0),
    /** A printed range such as "~35–40". */
    range: z.tuple([z.number(), z.number()]).optional(),
    /** Printed as approximate ("~20", "~35–40"): never judged as if exact. */
    approximate: z.boolean().optional(),
  }),
  ZBase.extend({
    kind: z.literal("delta"),
    metric: z.string().min(1),
    baseRunId: z.string().min(1),
    /** As a fraction: −0.81 for "−81%". */
    value: z.number(),
    step: z.number().min(0),
  }),
  ZBase.extend({
    kind: z.literal("ratio"),
    metric: z.string().min(1),
    baseRunId: z.string().min(1),
    /** value ÷ baseline, e.g. 7.5 for "7.5x". */
    value: z.number(),
    step: z.number().min(0),
  }),
  ZBase.extend({
    kind: z.literal("config"),
    /** A sweep parameter path: `knobs.PUBLISH_WORKERS`, `config.instanceType`, `scenario.poolSize`. */
    path: z.string().min(1),
    value: z.union([z.string(), z.number(), z.boolean()]),
  }),
  /** A "meets thresholds" mark. */
  ZBase.extend({ kind: z.literal("verdict"), value: z.boolean() }),
  /** The row the document marks as the best ("← optimal"). */
  ZBase.extend({ kind: z.literal("best") }),
]);
export type TPublishedFigure = z.infer<typeof ZPublishedFigure>;

export const ZPublishedReference = z.object({
  /** The document's title, e.g. "Part 4 — System Tuning Log". */
  source: z.string().min(1),
  /** The document's public address, where it has one. */
  url: z
    .string()
    .url()
    .refine((u) => u.startsWith("https://"), "an https address")
    .optional(),
  /** The table (or section) within it. */
  table: z.string().min(1),
  /** The date the document gives for itself (YYYY-MM-DD); absent when it states none. */
  date: z.iso.date().optional(),
  note: z.string().optional(),
  figures: z.array(ZPublishedFigure),
});
export type TPublishedReference = z.infer<typeof ZPublishedReference>;

/** What is known about one run when checking figures against it. */
export interface PublishedRunFacts {
  runId: string;
  /** Short display name, e.g. "#8". */
  label: string;
  /** Stored and derived metrics. */
  metrics: Readonly<Record<string, number>>;
  /** The same as intervals: stored values widened by their published rounding, derived from those. */
  bounds: Readonly<Record<string, Interval>>;
  /** What derived metrics are computed with. */
  context: DerivedContext;
  snapshots: RunSnapshots;
  meetsTargets: boolean | null;
  /** The thresholds taken together, when known: a "not measured" run neither meets nor misses them. */
  thresholdsOutcome?: ThresholdsOutcome;
  /**
   * The run's stored metrics and snapshots were copied from the document itself (an imported
   * write-up): a printed figure for them is carried, not checked. Derived figures, deltas,
   * ratios, verdicts and the best run are still computed.
   */
  transcribed?: boolean;
}

/**
 * `rounded`: the figure follows from the document's own rounded inputs (e.g. req/s per vCPU from
 * a req/s column rounded to whole numbers) but not from the measured values it rounded.
 * `carried`: the figure was copied into the run from the document, so comparing the two proves
 * nothing; it is shown as published and not counted as a check.
 */
export type PublishedStatus = "match" | "rounded" | "mismatch" | "unavailable" | "carried";

export interface PublishedCheck {
  figure: TPublishedFigure;
  status: PublishedStatus;
  /** Benchboard's own value, formatted in the figure's terms. */
  computedText: string;
  /** How the computed value was obtained or why it differs. */
  detail: string | null;
}

function overlaps(a: Interval, b: Interval): boolean {
  const eps = 1e-9 * Math.max(1, Math.abs(a[0]), Math.abs(a[1]), Math.abs(b[0]), Math.abs(b[1]));
  return a[0] <= b[1] + eps && b[0] <= a[1] + eps;
}

function published(value: number, step: number, range?: readonly [number, number]): Interval {
  return range ? [range[0], range[1]] : [value - step / 2, value + step / 2];
}

/** Decimal places to show for a fraction printed to `step`: one more than the document. */
function deltaDigits(step: number): number {
  if (step <= 0) return 2;
  const pctDecimals = Math.max(0, -Math.floor(Math.log10(step * 100) + 1e-9));
  return pctDecimals + 1;
}

function quotientBounds(num: Interval, den: Interval, minusOne: boolean): Interval | null {
  if (!(den[0] > 0)) return null;
  const corners = [num[0] / den[0], num[0] / den[1], num[1] / den[0], num[1] / den[1]];
  const lo = Math.min(...corners);
  const hi = Math.max(...corners);
  return minusOne ? [lo - 1, hi - 1] : [lo, hi];
}

function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a === "number" && typeof b === "number") return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a));
  return String(a) === String(b);
}

const CARRIED = "copied from the document into the run: shown as published, not checked";

/** Whether Benchboard computes this metric for the run from other figures (req/s per vCPU, throughput, …). */
function derivedHere(metric: string, run: PublishedRunFacts): boolean {
  if (!(DERIVED_KEYS as readonly string[]).includes(metric)) return false;
  const inputs: Record<string, Interval> = {};
  for (const [k, v] of Object.entries(run.bounds)) if (k !== metric) inputs[k] = v;
  return deriveBounds(inputs, run.context)[metric] !== undefined;
}

/** Check every figure; `bestRunId` is the run Benchboard marks best (sweeps). */
export function checkPublishedFigures(
  figures: readonly TPublishedFigure[],
  facts: ReadonlyMap<string, PublishedRunFacts>,
  bestRunId: string | null = null,
): PublishedCheck[] {
  const publishedValue = (runId: string, metric: string) =>
    figures.find(
      (f): f is Extract<TPublishedFigure, { kind: "value" }> =>
        f.kind === "value" && f.runId === runId && f.metric === metric,
    );

  /** A derived metric recomputed with the inputs replaced by this table's printed figures. */
  const derivedFromPrintedInputs = (metric: string, run: PublishedRunFacts) => {
    if (!(DERIVED_KEYS as readonly string[]).includes(metric)) return null;
    const inputs: Record<string, Interval> = { ...run.bounds };
    const replaced: string[] = [];
    for (const f of figures) {
      if (f.kind !== "value" || f.runId !== run.runId || (DERIVED_KEYS as readonly string[]).includes(f.metric))
        continue;
      inputs[f.metric] = published(f.value, f.step, f.range);
      replaced.push(`${f.label} ${f.text}`);
    }
    if (replaced.length === 0) return null;
    const bounds = deriveBounds(inputs, run.context)[metric];
    return bounds ? { bounds, inputs: replaced } : null;
  };

  return figures.map((figure): PublishedCheck => {
    const run = facts.get(figure.runId);
    const missing = (why: string): PublishedCheck => ({
      figure,
      status: "unavailable",
      computedText: "—",
      detail: why,
    });
    if (!run) return missing("the run is not part of this view");
    switch (figure.kind) {
      case "value": {
        const value = run.metrics[figure.metric];
        const bounds = run.bounds[figure.metric];
        if (value === undefined || !bounds) return missing(`${run.label} has no ${figure.metric}`);
        const printed = published(figure.value, figure.step, figure.range);
        const computedText = formatMetric(figure.metric, value);
        const how = describeDerivation(figure.metric, run.context);
        if (run.transcribed && !derivedHere(figure.metric, run)) {
          // The stored value is this very figure: a copy that disagrees is a transcription slip.
          return overlaps(printed, bounds)
            ? { figure, status: "carried", computedText, detail: CARRIED }
            : { figure, status: "mismatch", computedText, detail: "differs from the value stored for the run" };
        }
        if (overlaps(printed, bounds)) return { figure, status: "match", computedText, detail: how };
        const fromPrinted = derivedFromPrintedInputs(figure.metric, run);
        if (fromPrinted && overlaps(printed, fromPrinted.bounds)) {
          return {
            figure,
            status: "rounded",
            computedText,
            detail: `${how ? `${how}; ` : ""}follows from the document's rounded ${fromPrinted.inputs.join(", ")}, not from the measured values`,
          };
        }
        return { figure, status: "mismatch", computedText, detail: how };
      }
      case "delta":
      case "ratio": {
        const base = facts.get(figure.baseRunId);
        if (!base) return missing("the baseline run is not part of this view");
        const a = base.metrics[figure.metric];
        const b = run.metrics[figure.metric];
        const aBounds = base.bounds[figure.metric];
        const bBounds = run.bounds[figure.metric];
        if (a === undefined || b === undefined || !aBounds || !bBounds || a === 0) {
          return missing(`${figure.metric} is missing on ${base.label} or ${run.label}`);
        }
        const minusOne = figure.kind === "delta";
        const computed = minusOne ? (b - a) / a : b / a;
        const range = quotientBounds(bBounds, aBounds, minusOne);
        const ok = range !== null && overlaps(published(figure.value, figure.step), range);
        const show = (v: number) => (minusOne ? formatDeltaPct(v, deltaDigits(figure.step)) : `${v.toFixed(2)}×`);
        let detail: string | null =
          `${base.label} ${formatMetric(figure.metric, a)} → ${run.label} ${formatMetric(figure.metric, b)}`;
        const pa = publishedValue(figure.baseRunId, figure.metric);
        const pb = publishedValue(figure.runId, figure.metric);
        if (!ok && pa && pb && pa.value !== 0) {
          const fromPublished = minusOne ? (pb.value - pa.value) / pa.value : pb.value / pa.value;
          detail += `; from the published ${pa.text} → ${pb.text}: ${show(fromPublished)}`;
        }
        return { figure, status: ok ? "match" : "mismatch", computedText: show(computed), detail };
      }
      case "config": {
        const actual = readParameter(run.snapshots, figure.path);
        if (actual === null) return missing(`${run.label} does not record ${figure.path}`);
        const same = sameValue(actual, figure.value);
        return {
          figure,
          status: same ? (run.transcribed ? "carried" : "match") : "mismatch",
          computedText: formatSweepValue(actual),
          detail: same && run.transcribed ? CARRIED : null,
        };
      }
      case "verdict": {
        if (run.thresholdsOutcome === "not_measured") return missing("a threshold's metric was not measured");
        if (run.meetsTargets === null) return missing("no thresholds to judge against");
        return {
          figure,
          status: run.meetsTargets === figure.value ? "match" : "mismatch",
          computedText: run.meetsTargets ? "meets thresholds" : "misses a threshold",
          detail: null,
        };
      }
      case "best": {
        if (bestRunId === null) return missing("no run qualifies as best");
        const bestLabel = facts.get(bestRunId)?.label ?? bestRunId;
        return {
          figure,
          status: bestRunId === figure.runId ? "match" : "mismatch",
          computedText: `best: ${bestLabel}`,
          detail: null,
        };
      }
      default:
        return missing("not a kind of figure this version checks");
    }
  });
}

/** Key for looking up the check of a table cell: `value:<runId>:<metric>` or `delta:<runId>:<metric>`. */
export function publishedCellKey(kind: "value" | "delta" | "ratio", runId: string, metric: string): string {
  return `${kind}:${runId}:${metric}`;
}

/** Value steps (rounding) per metric from a run's own published figures. */
export function stepsFromFigures(figures: readonly TPublishedFigure[], runId: string): Record<string, number> {
  const steps: Record<string, number> = {};
  for (const f of figures) if (f.kind === "value" && f.runId === runId && !f.range) steps[f.metric] = f.step;
  return steps;
}

/**
 * The intervals that a run's approximate published values stand for (`~20` → 18–22, `~35–40` →
 * 35–40), keyed by metric: verdicts judge them across the whole interval, never as exact values.
 */
export function approximateFromFigures(figures: readonly TPublishedFigure[], runId: string): Record<string, Interval> {
  const out: Record<string, Interval> = {};
  for (const f of figures) {
    if (f.kind === "value" && f.runId === runId && (f.approximate || f.range)) {
      out[f.metric] = approximateInterval(f.value, f.range);
    }
  }
  return out;
}

/** The text a document printed for a run's metric, e.g. "47.13 µs" or "~35–40"; null when none. */
export function publishedText(figures: readonly TPublishedFigure[], runId: string, metric: string): string | null {
  for (const f of figures) if (f.kind === "value" && f.runId === runId && f.metric === metric) return f.text;
  return null;
}

/** How many checks computed something, and how they came out; carried figures are not checks. */
export interface PublishedTally {
  /** Figures Benchboard computed and compared: agree + rounded + disagree. */
  computed: number;
  agree: number;
  rounded: number;
  disagree: number;
  /** Copied from the document into the run: shown as published, not counted. */
  carried: number;
  unavailable: number;
}

export function tallyPublishedChecks(checks: readonly { status: PublishedStatus }[]): PublishedTally {
  const n = (s: PublishedStatus) => checks.filter((c) => c.status === s).length;
  const agree = n("match");
  const rounded = n("rounded");
  const disagree = n("mismatch");
  return {
    computed: agree + rounded + disagree,
    agree,
    rounded,
    disagree,
    carried: n("carried"),
    unavailable: n("unavailable"),
  };
}

/** "12 figures computed: 12 agree; 29 carried as published" — the one summary line of a check. */
export function publishedTallyText(t: PublishedTally): string {
  const computed = [`${t.agree} agree${t.agree === 1 ? "s" : ""}`];
  if (t.rounded > 0) computed.push(`${t.rounded} follow${t.rounded === 1 ? "s" : ""} only from rounded inputs`);
  if (t.disagree > 0) computed.push(`${t.disagree} disagree${t.disagree === 1 ? "s" : ""}`);
  const parts = [`${t.computed} figure${t.computed === 1 ? "" : "s"} computed: ${computed.join(", ")}`];
  if (t.carried > 0) parts.push(`${t.carried} carried as published`);
  if (t.unavailable > 0) parts.push(`${t.unavailable} not recorded`);
  return parts.join("; ");
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** A document's date as shown beside its figures: "15 Feb 2024", or "undated" when it states none. */
export function publicationDateText(date: string | null | undefined): string {
  const m = date ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(date) : null;
  if (!m) return "undated";
  return `${Number(m[3])} ${MONTHS[Number(m[2]) - 1]} ${m[1]}`;
}

/**
 * A headline figure of a run whose figures came from a document: always the metric's own
 * formatting (unit and precision from the metric vocabulary), never the printed string; the
 * source says where it came from and when ("as published, 15 Feb 2024").
 */
export function publishedHeadline(
  metric: string,
  value: number | null | undefined,
  publication: {
    date?: string | null;
    /** Printed as approximate ("~20"): the card keeps the "~". */
    approximate?: boolean;
    /** A printed range ("~35–40"): the card shows both ends. */
    range?: readonly [number, number];
  } | null,
): { text: string; source: string | null } {
  const range = publication?.range;
  const approximate = publication?.approximate || range !== undefined;
  const formatted = range
    ? `${formatMetric(metric, range[0])}–${formatMetric(metric, range[1])}`
    : formatMetric(metric, value);
  return {
    text: approximate && formatted !== "—" ? `~${formatted}` : formatted,
    source: publication ? `as published, ${publicationDateText(publication.date)}` : null,
  };
}
