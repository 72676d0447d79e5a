import type { ReactNode } from "react";
import { HydrateClient, prefetch, serverTrpc } from "~/trpc/server";
import { PageHeader } from "../_components/page-header";
import { SettingsSectionNav } from "./_components/section-nav";

export default async function SettingsLayout({ children }: { children: ReactNode }) {
  // The sections offered depend on whether this is the install's operator.
  await prefetch(serverTrpc.install.role.queryOptions());
  return (
    <>
      <PageHeader
        title="Settings"
        subtitle="Members and the organization, API tokens for CI, agents, notifications and, for the operator, the install."
      />
      <HydrateClient>
        <SettingsSectionNav />
      </HydrateClient>
      {children}
    </>
  );
}
