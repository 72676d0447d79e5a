/** Statuses after which a run changes no more: its results and charts can be read. */
export const TERMINAL_STATUSES: ReadonlySet<string> = new Set(["succeeded", "failed", "canceled"]);

/** Points per line on the run page's charts: about one per pixel of a chart's width. */
export const RUN_CHART_POINTS = 600;
