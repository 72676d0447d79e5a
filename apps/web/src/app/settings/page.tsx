import { PageHeader } from "../_components/page-header";
import { Agents } from "./_components/agents";
import { ApiTokens } from "./_components/api-tokens";
import { Members } from "./_components/members";
import { Notifications } from "./_components/notifications";
import { OperatorOrganizations } from "./_components/operator-organizations";
import { OperatorSettings } from "./_components/operator-settings";
import { OrgSettings } from "./_components/org-settings";

export const metadata = { title: "Settings" };

export default function SettingsPage() {
  return (
    <>
      <PageHeader
        title="Settings"
        subtitle="Members, invitations, API tokens for CI, agents, notifications, the organization's caps, and (for the operator) install settings."
      />
      <div className="grid gap-6 xl:grid-cols-2">
        <Members />
        <div className="space-y-6">
          <ApiTokens />
          <Agents />
          <OrgSettings />
          <OperatorSettings />
        </div>
      </div>
      <div className="mt-6 space-y-6">
        <OperatorOrganizations />
        <Notifications />
      </div>
    </>
  );
}
