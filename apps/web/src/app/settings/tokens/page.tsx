import { HydrateClient, prefetch, prefetched, serverTrpc } from "~/trpc/server";
import { ApiTokens } from "../_components/api-tokens";

export const metadata = { title: "API tokens · Settings" };

export default async function TokensSettingsPage() {
  const me = await prefetched(serverTrpc.auth.me.queryOptions());
  // Only members and owners manage tokens (and see the projects to scope one to).
  if (me?.role === "owner" || me?.role === "member") {
    await prefetch(serverTrpc.apiToken.list.queryOptions(), serverTrpc.project.list.queryOptions());
  }
  return (
    <HydrateClient>
      <div className="max-w-4xl">
        <ApiTokens />
      </div>
    </HydrateClient>
  );
}
