import { HydrateClient, prefetch, prefetched, serverTrpc } from "~/trpc/server";
import { Notifications } from "../_components/notifications";

export const metadata = { title: "Notifications · Settings" };

export default async function NotificationsSettingsPage() {
  const [me] = await Promise.all([
    prefetched(serverTrpc.auth.me.queryOptions()),
    prefetch(
      serverTrpc.notification.endpoints.queryOptions(),
      serverTrpc.notification.rules.queryOptions(),
      serverTrpc.project.list.queryOptions(),
      serverTrpc.notification.deliveries.queryOptions({ take: 50 }),
    ),
  ]);
  // The owner's notices are shown to owners only.
  if (me?.role === "owner") await prefetch(serverTrpc.notification.notices.queryOptions());
  return (
    <HydrateClient>
      <Notifications />
    </HydrateClient>
  );
}
