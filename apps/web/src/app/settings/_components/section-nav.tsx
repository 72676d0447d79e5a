"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { activeNavHref } from "~/app/_components/nav";
import { useTRPC } from "~/trpc/client";
import { SETTINGS_SECTIONS } from "./sections";

/** Settings' sections as tabs (a row that scrolls on a phone); the install's only for its operator. */
export function SettingsSectionNav() {
  const trpc = useTRPC();
  const pathname = usePathname();
  const role = useQuery(trpc.install.role.queryOptions());
  const sections = SETTINGS_SECTIONS.filter((s) => !s.operator || role.data?.operator);
  const hrefs = sections.map((s) => `/settings/${s.slug}`);
  const active = activeNavHref(pathname, hrefs);
  return (
    <nav aria-label="Settings sections" className="mb-6 max-w-full overflow-x-auto border-b border-slate-200">
      <ul className="flex gap-1">
        {sections.map((s, i) => {
          const href = hrefs[i]!;
          const current = href === active;
          return (
            <li key={s.slug}>
              <Link
                href={href}
                aria-current={current ? "page" : undefined}
                className={`-mb-px inline-block whitespace-nowrap border-b-2 px-3 py-2 text-sm font-medium ${
                  current
                    ? "border-sky-600 text-sky-700"
                    : "border-transparent text-slate-600 hover:border-slate-300 hover:text-slate-900"
                }`}
              >
                {s.label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
