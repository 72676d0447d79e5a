import type { ReactNode } from "react";
import { cx } from "./primitives";

/** One column of a {@link DataTable}: its heading, how a row fills it, and its alignment. */
export interface Column<T> {
  key: string;
  /** The heading; a string that should not show (an actions column) goes in `srHeader`. */
  header?: ReactNode;
  srHeader?: string;
  cell: (row: T) => ReactNode;
  align?: "left" | "right";
  /** Classes of every cell in the column (width, font, wrapping). */
  className?: string;
}

/**
 * A list's table: columns described once, rows filled from them. `plain` sits inside a card;
 * `panel` stands alone with its own border and a tinted heading row.
 */
export function DataTable<T>({
  label,
  columns,
  rows,
  rowKey,
  rowClassName,
  variant = "plain",
  busy,
}: {
  label: string;
  columns: readonly Column<T>[];
  rows: readonly T[];
  rowKey: (row: T) => string;
  rowClassName?: (row: T) => string | undefined;
  variant?: "plain" | "panel";
  /** Rows shown are from the previous query while a new one loads. */
  busy?: boolean;
}) {
  const panel = variant === "panel";
  const pad = panel ? "px-3 py-2" : "py-2 pr-3";
  const table = (
    <table className="w-full text-sm" aria-label={label}>
      <thead className={cx("text-left text-xs uppercase text-slate-500", panel && "bg-slate-50")}>
        <tr>
          {columns.map((c) => (
            <th
              key={c.key}
              scope="col"
              className={cx(panel ? "px-3 py-2" : "py-1 pr-3", c.align === "right" && "text-right", c.className)}
            >
              {c.header}
              {c.srHeader && <span className="sr-only">{c.srHeader}</span>}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={rowKey(row)} className={cx("border-t border-slate-100 align-top", rowClassName?.(row))}>
            {columns.map((c) => (
              <td key={c.key} className={cx(pad, c.align === "right" && "text-right", c.className)}>
                {c.cell(row)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
  if (!panel) return <div className="max-w-full overflow-x-auto">{table}</div>;
  return (
    <div
      className={cx(
        "overflow-x-auto rounded-lg border border-slate-200 bg-white shadow-sm transition-opacity",
        busy && "opacity-60",
      )}
      aria-busy={busy || undefined}
    >
      {table}
    </div>
  );
}

/** Page n of m with previous and next; nothing when everything fits on one page. */
export function Pager({
  page,
  pages,
  total,
  noun,
  onPage,
}: {
  page: number;
  pages: number;
  total: number;
  noun: string;
  onPage: (page: number) => void;
}) {
  if (pages <= 1) return null;
  const button =
    "rounded-md border border-slate-300 bg-white px-2.5 py-1 text-sm text-slate-800 shadow-sm hover:bg-slate-50 disabled:cursor-not-allowed disabled:opacity-50";
  return (
    <nav aria-label={`Pages of ${noun}`} className="mt-3 flex items-center justify-between gap-3 text-sm">
      <span className="text-slate-600">
        Page {page} of {pages} · {total} {noun}
      </span>
      <span className="flex gap-2">
        <button type="button" className={button} disabled={page <= 1} onClick={() => onPage(page - 1)}>
          Previous
        </button>
        <button type="button" className={button} disabled={page >= pages} onClick={() => onPage(page + 1)}>
          Next
        </button>
      </span>
    </nav>
  );
}
