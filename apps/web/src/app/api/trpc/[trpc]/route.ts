import { appRouter } from "@benchboard/api";
import { RestError, readBodyText } from "@benchboard/api/rest/index";
import { jsonTooDeep, MAX_JSON_DEPTH } from "@benchboard/core/importers";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { createContext } from "~/server/context";
import { isCrossSiteWrite } from "~/server/csrf";
import { misdirected } from "~/server/public-url";
import { requestedPublicUrl } from "~/server/request-origin";

export const dynamic = "force-dynamic";

/** Request bodies larger than this are refused, counted on the bytes actually read. */
const MAX_TRPC_BODY_BYTES = 1_000_000;

const refuse = (status: number, message: string) => Response.json({ error: { message } }, { status });

/**
 * The body read here, under the size limit whatever Content-Length says (a chunked body has
 * none), and checked for nesting before tRPC parses it; tRPC then reads the copy.
 */
async function boundedRequest(req: Request): Promise<Request | Response> {
  if (req.method !== "POST") return req;
  let text: string;
  try {
    text = await readBodyText(req, MAX_TRPC_BODY_BYTES);
  } catch (err) {
    if (err instanceof RestError) return refuse(err.status, err.message);
    throw err;
  }
  const deep = jsonTooDeep(text);
  if (deep) return refuse(400, `the request body nests deeper than ${MAX_JSON_DEPTH} levels (line ${deep.line})`);
  const headers = new Headers(req.headers);
  headers.delete("content-length");
  headers.delete("transfer-encoding");
  return new Request(req.url, { method: req.method, headers, body: text, signal: req.signal });
}

const handler = async (req: Request) => {
  if (!requestedPublicUrl(req)) return misdirected();
  if (isCrossSiteWrite(req)) return refuse(403, "cross-site request refused");
  const bounded = await boundedRequest(req);
  if (bounded instanceof Response) return bounded;
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req: bounded,
    router: appRouter,
    createContext,
    onError({ error, path }) {
      // Never log inputs: they may hold passwords or header secrets.
      if (error.code === "INTERNAL_SERVER_ERROR") console.error(`[trpc] ${path}: ${error.message}`);
    },
  });
};

export { handler as GET, handler as POST };
