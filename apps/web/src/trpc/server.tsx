import "server-only";
import { appRouter } from "@benchboard/api";
import { dehydrate, HydrationBoundary, QueryClient } from "@tanstack/react-query";
import type { FetchCreateContextFnOptions } from "@trpc/server/adapters/fetch";
import { createTRPCOptionsProxy } from "@trpc/tanstack-react-query";
import { headers } from "next/headers";
import { cache, type ReactNode } from "react";
import superjson from "superjson";
import { createContext } from "~/server/context";
import { QUERY_STALE_MS } from "./query-defaults";

/**
 * Server-side reads for a page's first paint. A page asks here, on the server, for what its
 * client components would otherwise ask for after hydrating — one after another when one query
 * needs another's answer — and hands the answers over in the HTML: the browser draws the content
 * from the first response, with no request of its own. The client's queries use the same keys, so
 * they start from these answers and refresh them as usual.
 */
const getQueryClient = cache(
  () =>
    new QueryClient({
      defaultOptions: {
        queries: { staleTime: QUERY_STALE_MS, retry: false },
        // Dates and the like survive the trip as the tRPC link would carry them.
        dehydrate: { serializeData: superjson.serialize },
      },
    }),
);

/** The same context a tRPC request from this browser gets: its session and chosen organization. */
const getContext = cache(async () => {
  const req = new Request("http://app.invalid/", { headers: new Headers(await headers()) });
  // Session renewal cookies cannot be set from a page render; the next API request renews it.
  return createContext({ req, resHeaders: new Headers() } as FetchCreateContextFnOptions);
});

export const serverTrpc = createTRPCOptionsProxy({ ctx: getContext, router: appRouter, queryClient: getQueryClient });

/** Query options from `serverTrpc.<router>.<procedure>.queryOptions(input)`. */
interface Prefetchable {
  queryKey: readonly unknown[];
}
type AnyFetchOptions = Parameters<QueryClient["prefetchQuery"]>[0];

/**
 * Run the queries on the server, all at once. A query that fails is left out: the client asks
 * again and shows the error the way it always does.
 */
export async function prefetch(...queries: Prefetchable[]): Promise<void> {
  const client = getQueryClient();
  await Promise.all(queries.map((q) => client.prefetchQuery(q as AnyFetchOptions)));
}

/**
 * The first page of an infinite list, from `serverTrpc.<router>.<procedure>.infiniteQueryOptions(input, …)`
 * with the options the client's `useInfiniteQuery` uses. A failure is left out, as with `prefetch`.
 */
export async function prefetchInfinite(query: Prefetchable): Promise<void> {
  await getQueryClient().prefetchInfiniteQuery(query as Parameters<QueryClient["prefetchInfiniteQuery"]>[0]);
}

/** One query's answer on the server (undefined when it failed), to decide what else to prefetch. */
export async function prefetched<TOptions extends Prefetchable>(query: TOptions) {
  const client = getQueryClient();
  await client.prefetchQuery(query as AnyFetchOptions);
  return client.getQueryData(query.queryKey as TOptions["queryKey"]);
}

/** Hands every prefetched answer to the client components below. */
export function HydrateClient({ children }: { children: ReactNode }) {
  return <HydrationBoundary state={dehydrate(getQueryClient())}>{children}</HydrationBoundary>;
}
