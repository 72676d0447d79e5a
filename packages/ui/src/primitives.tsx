import type { ReactNode } from "react";

export function cx(...parts: (string | false | null | undefined)[]): string {
  return parts.filter(Boolean).join(" ");
}

export function Card({
  title,
  actions,
  children,
  className,
}: {
  title?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
  className?: string;
}) {
  return (
    <section
      className={cx("rounded-lg border border-slate-200 bg-white shadow-sm", className)}
      aria-label={typeof title === "string" ? title : undefined}
    >
      {(title || actions) && (
        <header className="flex items-center justify-between border-b border-slate-100 px-4 py-2.5">
          <h2 className="text-sm font-semibold text-slate-800">{title}</h2>
          {actions}
        </header>
      )}
      <div className="p-4">{children}</div>
    </section>
  );
}

export function StatCard({
  label,
  value,
  hint,
  tone = "neutral",
}: {
  label: string;
  value: ReactNode;
  hint?: ReactNode;
  tone?: "neutral" | "good" | "bad";
}) {
  return (
    <div className="rounded-lg border border-slate-200 bg-white px-4 py-3 shadow-sm" role="group" aria-label={label}>
      <div className="text-xs font-medium uppercase tracking-wide text-slate-500">{label}</div>
      <div
        className={cx(
          "mt-1 text-2xl font-semibold tabular-nums",
          tone === "good" && "text-emerald-700",
          tone === "bad" && "text-rose-700",
          tone === "neutral" && "text-slate-900",
        )}
      >
        {value}
      </div>
      {hint && <div className="mt-0.5 text-xs text-slate-500">{hint}</div>}
    </div>
  );
}

const STATUS_STYLE: Record<string, string> = {
  queued: "bg-slate-100 text-slate-700 ring-slate-300",
  running: "bg-sky-50 text-sky-700 ring-sky-300",
  succeeded: "bg-emerald-50 text-emerald-700 ring-emerald-300",
  failed: "bg-rose-50 text-rose-700 ring-rose-300",
  canceled: "bg-amber-50 text-amber-800 ring-amber-300",
};

export function StatusBadge({ status }: { status: string }) {
  return (
    <span
      className={cx(
        "inline-flex items-center gap-1.5 rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset",
        STATUS_STYLE[status] ?? STATUS_STYLE.queued,
      )}
      data-status={status}
    >
      {status === "running" && <span className="h-1.5 w-1.5 animate-pulse rounded-full bg-sky-500" aria-hidden />}
      {status}
    </span>
  );
}

/**
 * A finished run the load generator distorted (late sends, a stalled event loop, its CPU spent):
 * shown beside its status wherever the run is listed.
 */
export function InvalidBadge({ reasons }: { reasons?: readonly string[] }) {
  const title = reasons?.length ? `Not a valid measurement: ${reasons.join("; ")}` : "Not a valid measurement";
  return (
    <span
      className="ml-1 inline-flex items-center rounded-full bg-amber-50 px-2 py-0.5 text-xs font-medium text-amber-800 ring-1 ring-inset ring-amber-300"
      title={title}
      data-invalid="true"
    >
      invalid
    </span>
  );
}

/**
 * A finished run whose target was the limit: still a valid measurement, of a saturated target.
 * `headline` says where it topped out ("saturated at ~N req/s achieved of M offered").
 */
export function SaturatedBadge({ headline, reasons }: { headline?: string | null; reasons?: readonly string[] }) {
  const title = [headline ?? "saturated: the target was the limit", ...(reasons ?? [])].join("; ");
  return (
    <span
      className="ml-1 inline-flex items-center rounded-full bg-sky-50 px-2 py-0.5 text-xs font-medium text-sky-800 ring-1 ring-inset ring-sky-300"
      title={`${title}. A valid measurement of the target at its limit.`}
      data-saturated="true"
    >
      saturated
    </span>
  );
}

/** A finished run's reading as a badge: nothing for valid, "saturated" or "invalid" otherwise. */
export function ReadingBadge({
  reading,
  invalidReasons,
  saturationReasons,
  headline,
}: {
  reading: "valid" | "saturated" | "invalid" | null | undefined;
  invalidReasons?: readonly string[];
  saturationReasons?: readonly string[];
  headline?: string | null;
}) {
  if (reading === "invalid") return <InvalidBadge reasons={invalidReasons} />;
  if (reading === "saturated") return <SaturatedBadge headline={headline} reasons={saturationReasons} />;
  return null;
}

/**
 * A bar for a known fraction; without one (`value` null) a full, pulsing bar that claims no
 * amount, with `unknown` saying why ("duration unknown", "waiting for the first figures").
 */
export function ProgressBar({
  value,
  label,
  unknown = "…",
}: {
  value: number | null;
  label: string;
  unknown?: string;
}) {
  const pct = value === null ? null : Math.max(0, Math.min(100, value * 100));
  return (
    <div>
      <div className="mb-1 flex justify-between text-xs text-slate-600">
        <span>{label}</span>
        <span className="tabular-nums">{pct === null ? unknown : `${pct.toFixed(0)}%`}</span>
      </div>
      <div
        className="h-2 w-full overflow-hidden rounded-full bg-slate-100"
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={pct === null ? undefined : Math.round(pct)}
        aria-valuetext={pct === null ? unknown : undefined}
        aria-busy={pct === null}
      >
        <div
          // A new element when the amount becomes known, so the bar does not shrink from full.
          key={pct === null ? "unknown" : "known"}
          className={cx(
            "h-full rounded-full transition-all",
            pct === null ? "w-full animate-pulse bg-sky-200" : "bg-sky-500",
          )}
          style={pct === null ? undefined : { width: `${pct}%` }}
        />
      </div>
    </div>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="rounded-lg border border-dashed border-slate-300 bg-slate-50 px-6 py-10 text-center">
      <p className="text-sm font-medium text-slate-700">{title}</p>
      {children && <div className="mt-2 text-sm text-slate-500">{children}</div>}
    </div>
  );
}

export function ErrorState({
  title = "Something went wrong",
  message,
  onRetry,
}: {
  title?: string;
  message: string;
  onRetry?: () => void;
}) {
  return (
    <div role="alert" className="rounded-lg border border-rose-200 bg-rose-50 px-4 py-3 text-sm text-rose-800">
      <p className="font-medium">{title}</p>
      <p className="mt-1">{message}</p>
      {onRetry && (
        <button
          type="button"
          onClick={onRetry}
          className="mt-2 rounded border border-rose-300 bg-white px-2 py-1 text-xs font-medium hover:bg-rose-100"
        >
          Try again
        </button>
      )}
    </div>
  );
}

export function Skeleton({ className, label = "Loading" }: { className?: string; label?: string }) {
  return <div className={cx("animate-pulse rounded bg-slate-200", className)} role="status" aria-label={label} />;
}

export function Field({
  label,
  error,
  hint,
  children,
  htmlFor,
}: {
  label: string;
  error?: string;
  hint?: string;
  children: ReactNode;
  htmlFor: string;
}) {
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={htmlFor} className="text-sm font-medium text-slate-700">
        {label}
      </label>
      {children}
      {hint && !error && <p className="text-xs text-slate-500">{hint}</p>}
      {error && (
        <p id={`${htmlFor}-error`} className="text-xs font-medium text-rose-700" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

export const inputClass =
  "rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm text-slate-900 shadow-sm focus:border-sky-500 focus:outline-none focus:ring-2 focus:ring-sky-200 aria-[invalid=true]:border-rose-400";

export function Button({
  children,
  variant = "primary",
  className,
  ...props
}: React.ButtonHTMLAttributes<HTMLButtonElement> & { variant?: "primary" | "secondary" | "danger" }) {
  return (
    <button
      type="button"
      {...props}
      className={cx(
        "inline-flex items-center justify-center gap-1.5 rounded-md px-3 py-1.5 text-sm font-medium shadow-sm transition disabled:cursor-not-allowed disabled:opacity-50",
        variant === "primary" && "bg-sky-600 text-white hover:bg-sky-700",
        variant === "secondary" && "border border-slate-300 bg-white text-slate-800 hover:bg-slate-50",
        variant === "danger" && "bg-rose-600 text-white hover:bg-rose-700",
        className,
      )}
    >
      {children}
    </button>
  );
}

/**
 * A table wider than its card scrolls inside the card, its first column (the row's name) staying
 * in view; the page itself never scrolls sideways.
 */
export function WideTable({ children, className }: { children: ReactNode; className?: string }) {
  return (
    <div className={cx("wide-table max-w-full overflow-x-auto overscroll-x-contain", className)} data-wide-table>
      {children}
    </div>
  );
}
