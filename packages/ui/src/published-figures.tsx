import { publicationDateText, publishedTallyText, tallyPublishedChecks } from "@benchboard/core";
import type { ReactNode } from "react";
import { cx } from "./primitives";

export interface PublishedCheckRow {
  figure: { kind: string; label: string; text: string; runId: string; baseRunId?: string; note?: string };
  status: "match" | "rounded" | "mismatch" | "unavailable" | "carried";
  computedText: string;
  detail: string | null;
}

const STATUS: Record<PublishedCheckRow["status"], { label: string; className: string }> = {
  match: { label: "✓ agrees", className: "text-emerald-700" },
  rounded: { label: "≈ from rounded inputs", className: "text-sky-700" },
  mismatch: { label: "⚠ disagrees", className: "font-semibold text-amber-800" },
  unavailable: { label: "— not recorded", className: "text-slate-500" },
  carried: { label: "as published", className: "text-slate-500" },
};

export function publishedStatusLabel(status: PublishedCheckRow["status"]): string {
  return STATUS[status].label;
}

/**
 * Figures a document published, beside what Benchboard computes from the same runs. Every
 * disagreement shows both numbers. Only figures Benchboard computed count as checks: one copied
 * from the document into the run reads "as published".
 */
export function PublishedFigures({
  source,
  url,
  table,
  date,
  note,
  checks,
  runLabel,
}: {
  source: string;
  /** The date the document gives for itself (YYYY-MM-DD), when it gives one. */
  date?: string;
  /** The document's public address, when it has one; else it is cited by its title. */
  url?: string;
  table: string;
  note?: string;
  checks: readonly PublishedCheckRow[];
  runLabel: (runId: string) => ReactNode;
}) {
  const tally = tallyPublishedChecks(checks);
  return (
    <div>
      <p className="text-sm text-slate-600">
        From{" "}
        {url ? (
          <a href={url} className="text-sky-700 hover:underline" rel="noreferrer noopener" target="_blank">
            {source}
          </a>
        ) : (
          <cite className="not-italic">{source}</cite>
        )}{" "}
        <span data-published-date>({publicationDateText(date)})</span> — {table}.{" "}
        <span className={cx("tabular-nums", tally.disagree > 0 && "font-semibold text-amber-800")} data-published-tally>
          {publishedTallyText(tally)}.
        </span>
      </p>
      {note && <p className="mt-1 text-sm text-slate-600">{note}</p>}
      <div className="mt-3 overflow-x-auto">
        <table className="w-full text-sm" aria-label="Published figures">
          <thead className="text-left text-xs uppercase text-slate-500">
            <tr>
              <th className="py-1.5 pr-3">Figure</th>
              <th className="py-1.5 pr-3">Run</th>
              <th className="py-1.5 pr-3 text-right">Published</th>
              <th className="py-1.5 pr-3 text-right">Computed</th>
              <th className="py-1.5 pr-3">Check</th>
              <th className="py-1.5">Why</th>
            </tr>
          </thead>
          <tbody>
            {checks.map((c, i) => (
              <tr
                // Figures repeat labels across runs; position keeps keys unique.
                key={`${i}-${c.figure.label}`}
                className={cx("border-t border-slate-100 align-top", c.status === "mismatch" && "bg-amber-50")}
                data-status={c.status}
              >
                <td className="py-1.5 pr-3">{c.figure.label}</td>
                <td className="py-1.5 pr-3 whitespace-nowrap">
                  {runLabel(c.figure.runId)}
                  {c.figure.baseRunId && <span className="text-slate-500"> vs {runLabel(c.figure.baseRunId)}</span>}
                </td>
                <td className="py-1.5 pr-3 text-right tabular-nums whitespace-nowrap">{c.figure.text}</td>
                <td className="py-1.5 pr-3 text-right tabular-nums whitespace-nowrap">{c.computedText}</td>
                <td className={cx("py-1.5 pr-3 whitespace-nowrap", STATUS[c.status].className)}>
                  {STATUS[c.status].label}
                </td>
                <td className="py-1.5 text-xs text-slate-600">
                  {[c.detail, c.figure.note].filter(Boolean).join(" — ")}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

/**
 * A figure's published value beside the computed one in a table cell. Collapsed (kept in the
 * document, not shown) until the reader asks for the check with `SourceCheckToggle`.
 */
export function PublishedMark({ check, shown }: { check: PublishedCheckRow | undefined; shown: boolean }) {
  if (!check) return null;
  const ok = check.status === "match";
  return (
    <div
      hidden={!shown}
      className={cx(
        "text-[11px] leading-tight",
        ok
          ? "text-emerald-700"
          : check.status === "rounded"
            ? "text-sky-700"
            : check.status === "unavailable" || check.status === "carried"
              ? "text-slate-400"
              : "font-semibold text-amber-800",
      )}
      title={[check.detail, check.figure.note].filter(Boolean).join(" — ") || undefined}
      data-published-status={check.status}
    >
      {ok
        ? "✓ published"
        : check.status === "carried"
          ? "as published:"
          : `${check.status === "rounded" ? "≈" : check.status === "unavailable" ? "—" : "⚠"} published`}{" "}
      {check.figure.text}
    </div>
  );
}

/** The one switch that shows every cell's published figure, with how many disagree. */
export function SourceCheckToggle({
  checks,
  shown,
  onChange,
}: {
  checks: readonly PublishedCheckRow[];
  shown: boolean;
  onChange: (shown: boolean) => void;
}) {
  const disagree = checks.filter((c) => c.status === "mismatch").length;
  return (
    <label className="flex items-center gap-1.5 text-xs font-normal text-slate-600">
      <input type="checkbox" checked={shown} onChange={(e) => onChange(e.target.checked)} />
      Checked against the source
      {disagree > 0 && <span className="font-semibold text-amber-800">({disagree} disagree)</span>}
    </label>
  );
}
