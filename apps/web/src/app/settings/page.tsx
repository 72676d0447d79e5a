import { redirect } from "next/navigation";
import { FIRST_SETTINGS_SECTION } from "./_components/sections";

/** Settings has no page of its own: it opens on its first section. */
export default function SettingsPage() {
  redirect(FIRST_SETTINGS_SECTION);
}
