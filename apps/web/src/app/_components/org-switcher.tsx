"use client";

import { useQuery } from "@tanstack/react-query";
import { openOrganization } from "~/lib/org-cookie";
import { useTRPC } from "~/trpc/client";

/** Switches the organization the whole UI shows (a cookie read by the server context). */
export function OrgSwitcher() {
  const trpc = useTRPC();
  const orgs = useQuery(trpc.org.list.queryOptions());
  if (!orgs.data || orgs.data.length < 2) return null;
  const current = orgs.data.find((o) => o.current);
  return (
    <div className="mb-5 px-2">
      <label htmlFor="org-switcher" className="mb-1 block text-xs font-medium uppercase tracking-wide text-slate-500">
        Organization
      </label>
      <select
        id="org-switcher"
        className="w-full rounded-md border border-slate-300 bg-white px-2 py-1 text-sm"
        value={current?.slug ?? ""}
        onChange={(e) => {
          openOrganization(e.target.value);
          window.location.assign("/");
        }}
      >
        {orgs.data.map((o) => (
          <option key={o.id} value={o.slug}>
            {o.name}
          </option>
        ))}
      </select>
    </div>
  );
}
