import { appRouter } from "@benchboard/api";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { createContext } from "~/server/context";

export const dynamic = "force-dynamic";

const handler = (req: Request) =>
  fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext,
    onError({ error, path }) {
      if (error.code === "INTERNAL_SERVER_ERROR") console.error(`[trpc] ${path}: ${error.message}`);
    },
  });

export { handler as GET, handler as POST };
