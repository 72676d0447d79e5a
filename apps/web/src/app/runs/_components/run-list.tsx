"use client";

import { Button, DataTable } from "@benchboard/ui";
import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useMemo, useState } from "react";
import { ListStates, useUrlParams } from "~/app/_components/list-kit";
import { useTRPC } from "~/trpc/client";
import { runColumns } from "./run-columns";
import { RunFilterBar } from "./run-filter-bar";
import { type Filters, filtersToSearch, listInput, RUN_PAGE_SIZE, readFilters } from "./run-filters";

/** The compare page takes up to ten runs. */
const MAX_COMPARE = 10;

export function RunList() {
  const trpc = useTRPC();
  const url = useUrlParams();
  const filters = useMemo(() => readFilters(url.params), [url.params]);
  const [selected, setSelected] = useState<string[]>([]);

  const setFilters = (patch: Filters) => {
    const next: Partial<Record<string, string | undefined>> = { ...patch };
    // Narrower choices belong to one project: they go when the project changes.
    if ("projectId" in patch && patch.projectId !== filters.projectId) {
      next.targetId = undefined;
      next.scenarioId = undefined;
      next.configId = undefined;
    }
    if (next.sort === "newest") next.sort = undefined;
    url.set(next);
  };

  const runs = useInfiniteQuery({
    ...trpc.run.list.infiniteQueryOptions(listInput(filters, RUN_PAGE_SIZE), {
      getNextPageParam: (last) => last.nextCursor ?? null,
    }),
    // The previous list stays on screen while a changed filter loads, instead of a blank flash.
    placeholderData: keepPreviousData,
    refetchInterval: (q) =>
      q.state.data?.pages.some((p) => p.items.some((r) => r.status === "running" || r.status === "queued"))
        ? 2_000
        : false,
  });
  const items = runs.data?.pages.flatMap((p) => p.items);
  const filtered = Object.keys(filters).some((k) => k !== "sort");

  const toggle = (id: string) =>
    setSelected((ids) => (ids.includes(id) ? ids.filter((x) => x !== id) : [...ids, id].slice(-MAX_COMPARE)));
  const exportHref = (format: "csv" | "json") => {
    const search = filtersToSearch(filters);
    return `/runs/export${search ? `${search}&` : "?"}format=${format}`;
  };

  return (
    <div className="space-y-4">
      <RunFilterBar filters={filters} onChange={setFilters} />

      <div className="flex flex-wrap items-center justify-between gap-3">
        <p className="text-sm text-slate-600" aria-live="polite">
          {selected.length === 0
            ? "Select runs to compare them side by side."
            : `${selected.length} run${selected.length === 1 ? "" : "s"} selected${selected.length === MAX_COMPARE ? " (the most a comparison takes)" : ""}.`}
        </p>
        <div className="flex flex-wrap gap-2">
          <span className="inline-flex items-center gap-2 text-sm text-slate-600">
            Export these runs:
            <a href={exportHref("csv")} download className="text-sky-700 hover:underline">
              CSV
            </a>
            <a href={exportHref("json")} download className="text-sky-700 hover:underline">
              JSON
            </a>
          </span>
          <Button variant="secondary" disabled={!filtered && !filters.sort} onClick={url.clear}>
            Clear filters
          </Button>
          {selected.length > 0 && (
            <Button variant="secondary" onClick={() => setSelected([])}>
              Clear selection
            </Button>
          )}
          {selected.length >= 2 ? (
            <Link
              href={`/compare?runs=${selected.join(",")}`}
              className="rounded-md bg-sky-600 px-3 py-1.5 text-sm font-medium text-white shadow-sm hover:bg-sky-700"
            >
              Compare {selected.length} runs
            </Link>
          ) : (
            <span
              aria-disabled="true"
              className="cursor-not-allowed rounded-md bg-sky-600 px-3 py-1.5 text-sm font-medium text-white opacity-50"
            >
              Compare
            </span>
          )}
        </div>
      </div>

      <ListStates
        query={runs}
        count={items?.length}
        loadingLabel="Loading runs"
        loadingClassName="h-40"
        emptyTitle="No runs yet"
        empty="Launch one from a project, or upload results from CI."
        filtered={filtered}
        filteredTitle="No runs match these filters"
        filteredHint="Clear a filter or widen the date range."
      >
        <DataTable
          label="Runs"
          variant="panel"
          busy={runs.isPlaceholderData}
          columns={runColumns({ selected, toggle, onTag: (tag) => setFilters({ tag }) })}
          rows={items ?? []}
          rowKey={(r) => r.id}
          rowClassName={(r) => (selected.includes(r.id) ? "bg-sky-50" : "hover:bg-slate-50")}
        />
      </ListStates>
      {runs.hasNextPage && (
        <div className="flex justify-center">
          <Button variant="secondary" onClick={() => runs.fetchNextPage()} disabled={runs.isFetchingNextPage}>
            {runs.isFetchingNextPage ? "Loading…" : "Load more runs"}
          </Button>
        </div>
      )}
    </div>
  );
}
