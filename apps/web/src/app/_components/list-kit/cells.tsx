import type { ReactNode } from "react";

const DOT = {
  good: { text: "text-emerald-700", dot: "bg-emerald-500" },
  active: { text: "text-sky-700", dot: "bg-sky-500" },
  idle: { text: "text-slate-500", dot: "bg-slate-300" },
} as const;

/** A state in a list cell: a coloured dot and its words. */
export function StateDot({ tone, children }: { tone: keyof typeof DOT; children: ReactNode }) {
  return (
    <span className={`inline-flex items-center gap-1.5 text-xs font-medium ${DOT[tone].text}`}>
      <span aria-hidden className={`h-2 w-2 rounded-full ${DOT[tone].dot}`} />
      {children}
    </span>
  );
}

/** Labels (of a worker, an agent) as chips; `none` when there are none. */
export function LabelChips({ labels, mono }: { labels: readonly string[]; mono?: boolean }) {
  if (labels.length === 0) return <span className="text-xs text-slate-400">none</span>;
  return labels.map((l) => (
    <span key={l} className={`mr-1 rounded bg-slate-100 px-1.5 py-0.5 text-xs${mono ? " font-mono" : ""}`}>
      {l}
    </span>
  ));
}
