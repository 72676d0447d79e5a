import { comparisonCsv } from "@benchboard/core";
import { requestCaller } from "~/server/callers";
import { download, exportError, exportFormat } from "~/server/download";
import { compareSelection } from "../_components/compare-params";

export const dynamic = "force-dynamic";

/**
 * A comparison as shown: a saved one (`?comparison=<id>`) or the runs in the URL
 * (`?runs=a,b&baseline=b`); `?format=json` (the whole view) or `csv` (a line per metric and run).
 */
export async function GET(req: Request) {
  const format = exportFormat(req);
  if (format instanceof Response) return format;
  const search = new URL(req.url).searchParams;
  const saved = search.get("comparison");
  const { runIds, baseline } = compareSelection((name) => search.get(name));
  if (!saved && runIds.length < 2) {
    return Response.json({ error: { message: "give at least two runs", field: "runs" } }, { status: 400 });
  }
  let view: Awaited<ReturnType<Awaited<ReturnType<typeof requestCaller>>["comparison"]["view"]>>;
  let name: string;
  try {
    const caller = await requestCaller(req);
    if (saved) {
      const found = await caller.comparison.byId({ id: saved });
      view = found.view;
      name = `comparison-${found.comparison.title}`;
    } else {
      view = await caller.comparison.view({ runIds, baselineRunId: baseline });
      name = `comparison-${view.runs.length}-runs`;
      // Nothing to export when fewer than two of the runs can be read here (the page says which are missing).
      if (view.runs.length < 2) {
        return Response.json(
          {
            error: { message: `no comparison: ${view.runs.length} of the ${runIds.length} runs found`, field: "runs" },
          },
          { status: 404 },
        );
      }
    }
  } catch (err) {
    return exportError(err);
  }
  if (format === "json") return download(JSON.stringify(view, null, 2), "json", `${name}.json`);
  return download(comparisonCsv(view.runs, view.baselineRunId, view.table), "csv", `${name}.csv`);
}
