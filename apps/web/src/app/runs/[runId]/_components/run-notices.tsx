"use client";

import type { RouterOutputs } from "@benchboard/api";

type Result = NonNullable<RouterOutputs["run"]["view"]["result"]>;

/** What the run's reading says about its figures: not valid, the target at its limit, or contradictory. */
export function RunNotices({ result }: { result: Result }) {
  return (
    <>
      {result.reading === "invalid" && (
        <div role="alert" className="rounded-lg border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900">
          <span className="font-semibold">Not a valid measurement: </span>
          {result.invalidReasons.join("; ") || "the engine flagged this run"}
        </div>
      )}

      {result.reading === "saturated" && (
        <section
          aria-label="The target at its limit"
          className="rounded-lg border border-sky-200 bg-sky-50 px-4 py-3 text-sm text-sky-900"
          data-reading="saturated"
        >
          <span className="font-semibold">
            {result.saturation ? `${result.saturation[0]!.toUpperCase()}${result.saturation.slice(1)}` : "Saturated"}:{" "}
          </span>
          {result.saturationReasons.join("; ")}. The figures are valid: they measure the target at its limit, not the
          load generator.
        </section>
      )}

      {result.contradictions.length > 0 && (
        <div role="alert" className="rounded-lg border border-rose-200 bg-rose-50 px-4 py-3 text-sm text-rose-900">
          <span className="font-semibold">Figures that contradict each other: </span>
          {result.contradictions.join(" ")}
        </div>
      )}
    </>
  );
}
