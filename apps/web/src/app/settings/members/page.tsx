import { HydrateClient, prefetch, prefetched, serverTrpc } from "~/trpc/server";
import { Members } from "../_components/members";
import { OrgSettings } from "../_components/org-settings";

export const metadata = { title: "Members · Settings" };

export default async function MembersSettingsPage() {
  const [me] = await Promise.all([
    prefetched(serverTrpc.auth.me.queryOptions()),
    prefetch(serverTrpc.org.current.queryOptions(), serverTrpc.project.caps.queryOptions()),
  ]);
  // What the role may see, as the client decides: members and owners the list, owners the invitations.
  const role = me?.role;
  await prefetch(
    ...(role === "owner" || role === "member" ? [serverTrpc.member.list.queryOptions()] : []),
    ...(role === "owner" ? [serverTrpc.member.invitations.queryOptions()] : []),
  );
  return (
    <HydrateClient>
      <div className="grid gap-6 xl:grid-cols-[3fr_2fr]">
        <Members />
        <div>
          <OrgSettings />
        </div>
      </div>
    </HydrateClient>
  );
}
