import { metricDef, toCsv } from "@benchboard/core";
import { TRPCError } from "@trpc/server";
import { requestCaller } from "~/server/callers";

export const dynamic = "force-dynamic";

/** Downloads of a run: `?format=json` (everything), `csv` (summary metrics), `series-csv`. */
export async function GET(req: Request, { params }: { params: Promise<{ runId: string }> }) {
  const { runId } = await params;
  const format = new URL(req.url).searchParams.get("format") ?? "json";
  let data: Awaited<ReturnType<Awaited<ReturnType<typeof requestCaller>>["run"]["export"]>>;
  try {
    data = await (await requestCaller(req)).run.export({ id: runId });
  } catch (err) {
    if (err instanceof TRPCError) {
      const status =
        err.code === "NOT_FOUND" ? 404 : err.code === "UNAUTHORIZED" ? 401 : err.code === "FORBIDDEN" ? 403 : 500;
      return Response.json({ error: { message: status === 500 ? "export failed" : err.message } }, { status });
    }
    throw err;
  }
  const name = `run-${data.run.number}-${runId}`;
  const download = (body: string, type: string, file: string) =>
    new Response(body, {
      headers: {
        "content-type": type,
        "content-disposition": `attachment; filename="${file}"`,
        "cache-control": "no-store",
      },
    });
  if (format === "json") return download(JSON.stringify(data, null, 2), "application/json", `${name}.json`);
  if (format === "csv") {
    const rows = Object.entries(data.result?.metrics ?? {}).map(([key, value]) => {
      const def = metricDef(key);
      return [key, def.label, def.unit, value];
    });
    return download(
      toCsv([["metric", "label", "unit", "value"], ...rows]),
      "text/csv; charset=utf-8",
      `${name}-metrics.csv`,
    );
  }
  if (format === "series-csv") {
    const starts = data.series.map((s) => Date.parse(s.start));
    const t0 = Math.min(...starts);
    const times = new Map<number, Record<string, number | null>>();
    data.series.forEach((s, i) => {
      s.values.forEach((v, j) => {
        const at = starts[i]! + j * s.intervalMs;
        const row = times.get(at) ?? {};
        row[s.metric] = v;
        times.set(at, row);
      });
    });
    const metrics = data.series.map((s) => s.metric);
    const rows = [...times.entries()]
      .sort(([a], [b]) => a - b)
      .map(([at, row]) => [new Date(at).toISOString(), (at - t0) / 1000, ...metrics.map((m) => row[m] ?? null)]);
    return download(
      toCsv([["time", "elapsed_s", ...metrics], ...rows]),
      "text/csv; charset=utf-8",
      `${name}-series.csv`,
    );
  }
  return Response.json({ error: { message: "format must be json, csv or series-csv" } }, { status: 400 });
}
