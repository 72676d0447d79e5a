import { Notifications } from "../_components/notifications";

export const metadata = { title: "Notifications · Settings" };

export default function NotificationsSettingsPage() {
  return <Notifications />;
}
