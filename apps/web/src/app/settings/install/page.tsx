import { HydrateClient, prefetch, prefetched, serverTrpc } from "~/trpc/server";
import { InstallSection } from "../_components/install-section";

export const metadata = { title: "Install · Settings" };

export default async function InstallSettingsPage() {
  const role = await prefetched(serverTrpc.install.role.queryOptions());
  // The install's settings and organizations are the operator's alone.
  if (role?.operator) {
    await prefetch(
      serverTrpc.install.get.queryOptions(),
      serverTrpc.install.organizations.queryOptions(),
      serverTrpc.install.retention.queryOptions(),
    );
  }
  return (
    <HydrateClient>
      <InstallSection />
    </HydrateClient>
  );
}
