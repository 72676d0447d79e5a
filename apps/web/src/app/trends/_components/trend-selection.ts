import { MAX_SHARDS } from "@benchboard/core";

/** What the trend filters need to know of a project (the `trend.options` answer). */
export interface TrendProjectOption {
  id: string;
  runs: number;
  scenarios: string[];
}

/** Reads one search parameter, from the browser's URLSearchParams or a page's searchParams. */
export type ParamReader = (name: string) => string | null;

export function paramReader(params: Record<string, string | string[] | undefined>): ParamReader {
  return (name) => {
    const v = params[name];
    return (Array.isArray(v) ? v[0] : v) ?? null;
  };
}

/**
 * The trend the URL asks for, with the defaults a bare /trends gets: the first project with runs
 * and its first scenario, rate, every branch, config, load and shard count. The page's server
 * render and the browser read it the same way, so the server can fetch what the browser will show.
 */
export function trendSelection<P extends TrendProjectOption>(projects: readonly P[], get: ParamReader) {
  const project = projects.find((p) => p.id === get("projectId")) ?? projects.find((p) => p.runs > 0) ?? projects[0];
  const wantedScenario = get("scenario") ?? "";
  const scenario = project?.scenarios.includes(wantedScenario) ? wantedScenario : project?.scenarios[0];
  const shardsParam = Number(get("shards"));
  const shards = Number.isInteger(shardsParam) && shardsParam >= 1 && shardsParam <= MAX_SHARDS ? shardsParam : null;
  const metric = get("metric") || "rps";
  return {
    project,
    scenario,
    metric,
    /** The `trend.view` input; null while there is no project or scenario to show. */
    input:
      project && scenario
        ? {
            projectId: project.id,
            scenarioName: scenario,
            metric,
            branch: get("branch") || null,
            config: get("config") || null,
            load: get("load") || null,
            shards,
          }
        : null,
  };
}
