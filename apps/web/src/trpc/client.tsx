"use client";

import type { AppRouter } from "@benchboard/api";
import { installPlainZodMessages } from "@benchboard/core";
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import { type ReactNode, useState } from "react";
import superjson from "superjson";
import { reportForbidden } from "~/app/_components/forbidden-notice";
import { QUERY_STALE_MS } from "./query-defaults";
import { isUnauthorized, signInAgain } from "./session-ended";

// Forms check input with core's zod schemas in the browser: their messages in plain words, as the
// server's. Called, not left to the import: the bundler drops core's modules kept only for effects.
installPlainZodMessages();

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

function onError(error: unknown) {
  // A refusal for the role is shown wherever it happens, even by forms with no error line.
  reportForbidden(error);
  // A session that ended (signed out elsewhere, expired, a password reset) goes to sign-in.
  signInAgain(error);
}

function makeQueryClient() {
  return new QueryClient({
    defaultOptions: {
      // Asking again without a session cannot succeed: no retry, straight to sign-in.
      queries: { staleTime: QUERY_STALE_MS, retry: (failures, error) => !isUnauthorized(error) && failures < 1 },
      // Answers the server fetched for the first paint (trpc/server.tsx) arrive serialized the same way.
      hydrate: { deserializeData: superjson.deserialize },
    },
    mutationCache: new MutationCache({ onError }),
    queryCache: new QueryCache({ onError }),
  });
}

export function TRPCReactProvider({ children }: { children: ReactNode }) {
  const [queryClient] = useState(makeQueryClient);
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: "/api/trpc", transformer: superjson })] }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}
