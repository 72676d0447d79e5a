import { InstallSection } from "../_components/install-section";

export const metadata = { title: "Install · Settings" };

export default function InstallSettingsPage() {
  return <InstallSection />;
}
