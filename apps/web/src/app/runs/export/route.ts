import { TRPCError } from "@trpc/server";
import { requestCaller } from "~/server/callers";
import { EXPORT_MAX_RUNS, exportRecord, runsCsv } from "../_components/run-export";
import { listInput, readFilters } from "../_components/run-filters";

export const dynamic = "force-dynamic";

/** Procedure pages of this size are read until the filters' runs are all in (or the cap is met). */
const PAGE = 200;

/**
 * Every run the runs list's filters select, as `?format=csv` or `json`: the same query string as
 * the list's address, so the download holds what the list shows, not only its first page.
 */
export async function GET(req: Request) {
  const params = new URL(req.url).searchParams;
  const format = params.get("format") ?? "csv";
  if (format !== "csv" && format !== "json") {
    return Response.json({ error: { message: "format must be csv or json" } }, { status: 400 });
  }
  const input = listInput(readFilters(params), PAGE);
  type Page = Awaited<ReturnType<Awaited<ReturnType<typeof requestCaller>>["run"]["list"]>>;
  const items: Page["items"] = [];
  let truncated = false;
  try {
    const caller = await requestCaller(req);
    let cursor: string | undefined;
    do {
      const page: Page = await caller.run.list({ ...input, cursor });
      items.push(...page.items);
      cursor = page.nextCursor ?? undefined;
      if (items.length >= EXPORT_MAX_RUNS) {
        truncated = cursor !== undefined || items.length > EXPORT_MAX_RUNS;
        items.length = Math.min(items.length, EXPORT_MAX_RUNS);
        break;
      }
    } while (cursor);
  } catch (err) {
    if (err instanceof TRPCError) {
      const status =
        err.code === "UNAUTHORIZED" ? 401 : err.code === "FORBIDDEN" ? 403 : err.code === "BAD_REQUEST" ? 400 : 500;
      return Response.json({ error: { message: status === 500 ? "export failed" : err.message } }, { status });
    }
    throw err;
  }
  const stamp = new Date().toISOString().slice(0, 10);
  const headers = (type: string, file: string) => ({
    "content-type": type,
    "content-disposition": `attachment; filename="${file}"`,
    "cache-control": "no-store",
    "x-benchboard-runs": String(items.length),
    ...(truncated ? { "x-benchboard-truncated": `first ${EXPORT_MAX_RUNS} runs` } : {}),
  });
  if (format === "json") {
    const body = JSON.stringify({ runs: items.map(exportRecord), count: items.length, truncated }, null, 2);
    return new Response(body, { headers: headers("application/json", `runs-${stamp}.json`) });
  }
  return new Response(runsCsv(items), { headers: headers("text/csv; charset=utf-8", `runs-${stamp}.csv`) });
}
