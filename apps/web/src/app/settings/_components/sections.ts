/** The sections of Settings, in order: each has its own address; `operator` ones only the operator sees. */
export const SETTINGS_SECTIONS: readonly { slug: string; label: string; operator?: boolean }[] = [
  { slug: "members", label: "Members" },
  { slug: "tokens", label: "API tokens" },
  { slug: "agents", label: "Agents" },
  { slug: "notifications", label: "Notifications" },
  { slug: "install", label: "Install", operator: true },
];

export const FIRST_SETTINGS_SECTION = `/settings/${SETTINGS_SECTIONS[0]!.slug}`;
