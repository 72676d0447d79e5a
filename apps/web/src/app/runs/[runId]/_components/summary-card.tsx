"use client";

import { metricDef, publishedHeadline } from "@benchboard/core";
import { StatCard } from "@benchboard/ui";

/** One headline figure of the run: a stored, derived or printed value, with its source. */
export function SummaryCard({
  metric,
  value,
  derived,
  failed,
  printed,
  publication,
  disagreement,
}: {
  metric: string;
  value: number | undefined;
  /** The printed figure (formatted like any other) when Benchboard's own disagrees with it, and why. */
  disagreement?: { publishedText: string; detail: string | null };
  derived: boolean;
  failed: number;
  /** The figure as a document printed it: the card says so, and formats the value like any other. */
  printed?: string;
  /** The document that printed it: its date (YYYY-MM-DD) and whether the figure was approximate. */
  publication?: { date?: string; approximate?: boolean; range?: readonly [number, number] };
}) {
  const def = metricDef(metric);
  // A derived figure is Benchboard's own; a stored one of a transcribed run is the document's.
  const { text, source } = publishedHeadline(
    metric,
    value,
    printed !== undefined && !derived ? (publication ?? {}) : null,
  );
  // A long unit (req/s/vCPU) moves under the number so the card keeps one line.
  const long = text.endsWith(` ${def.unit}`) && text.length > 11;
  const tone =
    metric === "success_rate" ? (failed ? "bad" : "good") : metric === "failed" && failed ? "bad" : "neutral";
  return (
    <StatCard
      label={def.label}
      value={long ? text.slice(0, -def.unit.length - 1) : text}
      tone={tone}
      hint={
        <>
          {[long ? def.unit : null, derived ? "derived" : null, source].filter(Boolean).join(" · ") || null}
          {disagreement && (
            <span
              className="block font-medium text-amber-700"
              title={disagreement.detail ?? undefined}
              data-published-disagreement
            >
              ⚠ published {disagreement.publishedText}
            </span>
          )}
        </>
      }
    />
  );
}
