import { HydrateClient, prefetch, prefetched, serverTrpc } from "~/trpc/server";
import { Agents } from "../_components/agents";

export const metadata = { title: "Agents · Settings" };

export default async function AgentsSettingsPage() {
  const [me] = await Promise.all([
    prefetched(serverTrpc.auth.me.queryOptions()),
    prefetch(serverTrpc.agent.list.queryOptions()),
  ]);
  // Agent tokens are listed to members and owners only.
  if (me?.role === "owner" || me?.role === "member") await prefetch(serverTrpc.agent.tokens.queryOptions());
  return (
    <HydrateClient>
      <Agents />
    </HydrateClient>
  );
}
