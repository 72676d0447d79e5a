import type { ReactNode } from "react";
import { PageHeader } from "../_components/page-header";
import { SettingsSectionNav } from "./_components/section-nav";

export default function SettingsLayout({ children }: { children: ReactNode }) {
  return (
    <>
      <PageHeader
        title="Settings"
        subtitle="Members and the organization, API tokens for CI, agents, notifications and, for the operator, the install."
      />
      <SettingsSectionNav />
      {children}
    </>
  );
}
