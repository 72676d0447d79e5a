import { appRouter } from "@benchboard/api";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { createContext } from "~/server/context";
import { isCrossSiteWrite } from "~/server/csrf";

export const dynamic = "force-dynamic";

/** Request bodies larger than this are refused before parsing. */
const MAX_BODY_BYTES = 1_000_000;

const handler = (req: Request) => {
  if (isCrossSiteWrite(req)) {
    return Response.json({ error: { message: "cross-site request refused" } }, { status: 403 });
  }
  const length = Number(req.headers.get("content-length") ?? 0);
  if (length > MAX_BODY_BYTES) {
    return Response.json(
      { error: { message: `request body is larger than ${MAX_BODY_BYTES} bytes` } },
      { status: 413 },
    );
  }
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext,
    onError({ error, path }) {
      // Never log inputs: they may hold passwords or header secrets.
      if (error.code === "INTERNAL_SERVER_ERROR") console.error(`[trpc] ${path}: ${error.message}`);
    },
  });
};

export { handler as GET, handler as POST };
