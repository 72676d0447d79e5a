import { badgeSvg, formatMetric, isKnownMetric, metricDef } from "@benchboard/core";
import { badgeFigure, type Db } from "@benchboard/db";

export interface BadgeResponse {
  status: number;
  svg: string;
  headers: Record<string, string>;
}

const VERDICT_WORDS = { pass: "passing", fail: "failing", not_measured: "not measured", none: "" } as const;

/** Cached by browsers and proxies (README images are fetched through caching proxies) for 5 minutes. */
const CACHE = "public, max-age=300, stale-while-revalidate=600";

/**
 * GET /api/v1/badge/{project}/{scenario}/{metric}.svg[?token=<share token>]: the latest value of
 * the metric on the project's default branch, colored by its thresholds' verdict. A project whose
 * owners did not make badges public (and no share link of it) answers 404 like an unknown one,
 * so a badge URL tells a stranger nothing about what exists.
 */
export async function badgeHandler(
  req: { url: string },
  deps: { db: Db },
  params: { project: string; scenario: string; metric: string },
): Promise<BadgeResponse> {
  const metric = params.metric.replace(/\.svg$/, "");
  const svgHeaders = { "content-type": "image/svg+xml; charset=utf-8", "x-content-type-options": "nosniff" };
  if (!isKnownMetric(metric) || params.scenario.length > 200 || params.project.length > 200) {
    return {
      status: 400,
      svg: badgeSvg("badge", `unknown metric ${metric.slice(0, 40)}`, "unknown"),
      headers: { ...svgHeaders, "cache-control": "no-store" },
    };
  }
  const token = new URL(req.url).searchParams.get("token");
  const figure = await badgeFigure(deps.db, {
    projectId: params.project,
    scenario: params.scenario,
    metric,
    shareToken: token,
  });
  if (!figure) {
    return {
      status: 404,
      svg: badgeSvg("benchboard", "not found", "unknown"),
      headers: { ...svgHeaders, "cache-control": "no-store" },
    };
  }
  const label = `${figure.scenario} ${metricDef(metric).label}`;
  const message =
    figure.runNumber === null
      ? `no run on ${figure.branch}`
      : [formatMetric(metric, figure.value), VERDICT_WORDS[figure.verdict]].filter(Boolean).join(" · ");
  // A badge read through a share token is as private as the link: caches keep it to one browser.
  const cache = token ? CACHE.replace("public", "private") : CACHE;
  return {
    status: 200,
    svg: badgeSvg(label, message, figure.runNumber === null ? "unknown" : figure.verdict),
    headers: { ...svgHeaders, "cache-control": cache },
  };
}
