import { PageHeader } from "../_components/page-header";
import { ApiTokens } from "./_components/api-tokens";
import { Members } from "./_components/members";
import { OrgSettings } from "./_components/org-settings";

export const metadata = { title: "Settings" };

export default function SettingsPage() {
  return (
    <>
      <PageHeader
        title="Settings"
        subtitle="Members, invitations, API tokens for CI, and organization safety settings."
      />
      <div className="grid gap-6 xl:grid-cols-2">
        <Members />
        <div className="space-y-6">
          <ApiTokens />
          <OrgSettings />
        </div>
      </div>
    </>
  );
}
