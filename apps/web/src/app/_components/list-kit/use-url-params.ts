"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useEffect, useMemo, useRef } from "react";
import { searchWith } from "./url-params";

/**
 * A list's state in the address: read a key, or replace some keys (without a history entry or a
 * scroll). Two changes in quick succession (both bounds of a range typed one after the other) each
 * start from the one before, not from the address before either landed.
 */
export function useUrlParams() {
  const router = useRouter();
  const pathname = usePathname();
  const searchParams = useSearchParams();
  const params = useMemo(() => new URLSearchParams(searchParams.toString()), [searchParams]);
  const latest = useRef(params);
  useEffect(() => {
    latest.current = params;
  }, [params]);
  return {
    params,
    get: (key: string) => params.get(key) ?? undefined,
    set: (patch: Record<string, string | undefined>) => {
      const search = searchWith(latest.current, patch);
      latest.current = new URLSearchParams(search);
      router.replace(`${pathname}${search}`, { scroll: false });
    },
    clear: () => {
      latest.current = new URLSearchParams();
      router.replace(pathname, { scroll: false });
    },
  };
}
