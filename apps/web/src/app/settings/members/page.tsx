import { Members } from "../_components/members";
import { OrgSettings } from "../_components/org-settings";

export const metadata = { title: "Members · Settings" };

export default function MembersSettingsPage() {
  return (
    <div className="grid gap-6 xl:grid-cols-[3fr_2fr]">
      <Members />
      <div>
        <OrgSettings />
      </div>
    </div>
  );
}
