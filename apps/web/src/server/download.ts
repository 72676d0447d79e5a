import "server-only";
import { TRPCError } from "@trpc/server";

/** A file to save: JSON or CSV, never cached (it holds the organization's data). */
export function download(body: string, type: "json" | "csv", file: string): Response {
  return new Response(body, {
    headers: {
      "content-type": type === "json" ? "application/json" : "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="${file.replace(/[^A-Za-z0-9._-]+/g, "-")}"`,
      "cache-control": "no-store",
    },
  });
}

/** A refused or failed export as the REST API answers errors; anything unexpected is rethrown. */
export function exportError(err: unknown): Response {
  if (err instanceof TRPCError) {
    const status =
      err.code === "NOT_FOUND"
        ? 404
        : err.code === "UNAUTHORIZED"
          ? 401
          : err.code === "FORBIDDEN"
            ? 403
            : err.code === "BAD_REQUEST"
              ? 400
              : 500;
    return Response.json({ error: { message: status === 500 ? "export failed" : err.message } }, { status });
  }
  throw err;
}

/** `?format=` of an export: json or csv, else a 400 naming the field. */
export function exportFormat(req: Request): "json" | "csv" | Response {
  const format = new URL(req.url).searchParams.get("format") ?? "json";
  if (format === "json" || format === "csv") return format;
  return Response.json({ error: { message: "format must be json or csv", field: "format" } }, { status: 400 });
}
