/** How a delta reads against the baseline: better, worse, within noise or neither. */
export const VERDICT_STYLE: Record<string, string> = {
  better: "text-emerald-700",
  worse: "text-rose-700",
  noise: "text-slate-500 italic",
  neutral: "text-slate-600",
  same: "text-slate-600",
  none: "text-slate-400",
};
