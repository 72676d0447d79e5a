import type { ReactNode } from "react";
import { cx } from "./primitives";

export interface PublishedCheckRow {
  figure: { kind: string; label: string; text: string; runId: string; baseRunId?: string; note?: string };
  status: "match" | "rounded" | "mismatch" | "unavailable";
  computedText: string;
  detail: string | null;
}

const STATUS: Record<PublishedCheckRow["status"], { label: string; className: string }> = {
  match: { label: "✓ agrees", className: "text-emerald-700" },
  rounded: { label: "≈ from rounded inputs", className: "text-sky-700" },
  mismatch: { label: "⚠ disagrees", className: "font-semibold text-amber-800" },
  unavailable: { label: "— not recorded", className: "text-slate-500" },
};

export function publishedStatusLabel(status: PublishedCheckRow["status"]): string {
  return STATUS[status].label;
}

/**
 * Figures a document published, beside what Benchboard computes from the same runs. Every
 * disagreement shows both numbers.
 */
export function PublishedFigures({
  source,
  table,
  note,
  checks,
  runLabel,
}: {
  source: string;
  table: string;
  note?: string;
  checks: readonly PublishedCheckRow[];
  runLabel: (runId: string) => ReactNode;
}) {
  const count = (s: PublishedCheckRow["status"]) => checks.filter((c) => c.status === s).length;
  const disagreements = count("mismatch");
  return (
    <div>
      <p className="text-sm text-slate-600">
        From <span className="font-mono text-xs">{source}</span> — {table}.{" "}
        <span className="tabular-nums">
          {checks.length} figures: {count("match")} agree
          {count("rounded") > 0 && `, ${count("rounded")} follow only from rounded inputs`}
          {disagreements > 0 && (
            <span className="font-semibold text-amber-800">
              , {disagreements} disagree{disagreements === 1 ? "s" : ""}
            </span>
          )}
          {count("unavailable") > 0 && `, ${count("unavailable")} not recorded`}.
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
            : check.status === "unavailable"
              ? "text-slate-400"
              : "font-semibold text-amber-800",
      )}
      title={[check.detail, check.figure.note].filter(Boolean).join(" — ") || undefined}
      data-published-status={check.status}
    >
      {ok ? "✓" : check.status === "rounded" ? "≈" : check.status === "unavailable" ? "—" : "⚠"} published{" "}
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
