import { sweepCsv } from "@benchboard/core";
import { requestCaller } from "~/server/callers";
import { download, exportError, exportFormat } from "~/server/download";

export const dynamic = "force-dynamic";

/** A sweep's table as shown: `?format=json` (the whole view) or `csv` (a line per run). */
export async function GET(req: Request, { params }: { params: Promise<{ sweepId: string }> }) {
  const { sweepId } = await params;
  const format = exportFormat(req);
  if (format instanceof Response) return format;
  let view: Awaited<ReturnType<Awaited<ReturnType<typeof requestCaller>>["sweep"]["byId"]>>;
  try {
    view = await (await requestCaller(req)).sweep.byId({ id: sweepId, capacity: null });
  } catch (err) {
    return exportError(err);
  }
  const name = `sweep-${view.sweep.name}`;
  if (format === "json") return download(JSON.stringify(view, null, 2), "json", `${name}.json`);
  return download(sweepCsv(view.sweep.parameter, view.rows), "csv", `${name}.csv`);
}
