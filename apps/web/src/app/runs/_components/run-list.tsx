"use client";

import { formatMetric } from "@benchboard/core";
import { Button, EmptyState, ErrorState, ReadingBadge, Skeleton, StatusBadge } from "@benchboard/ui";
import { keepPreviousData, useInfiniteQuery, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useEffect, useMemo, useRef, useState } from "react";
import { useTRPC } from "~/trpc/client";
import { errorMessage } from "~/trpc/errors";
import { FilterField, FilterSelect, filterControlClass } from "./filter-field";
import { MetricRangeFilter, MetricSortControls } from "./metric-controls";
import { type Filters, filtersToSearch, listInput, readFilters, SORTS, STATUSES } from "./run-filters";

const PAGE_SIZE = 50;
/** The compare page takes up to ten runs. */
const MAX_COMPARE = 10;

export function RunList() {
  const trpc = useTRPC();
  const router = useRouter();
  const pathname = usePathname();
  const searchParams = useSearchParams();
  const filters = useMemo(() => readFilters(new URLSearchParams(searchParams.toString())), [searchParams]);
  const [selected, setSelected] = useState<string[]>([]);

  // The filters last asked for: two changes in quick succession (both bounds of a range typed one
  // after the other) must not each start from the address before either landed, or the second
  // would drop the first.
  const latest = useRef(filters);
  useEffect(() => {
    latest.current = filters;
  }, [filters]);
  const setFilters = (patch: Filters) => {
    const next: Filters = { ...latest.current, ...patch };
    // Narrower choices belong to one project: they go when the project changes.
    if ("projectId" in patch && patch.projectId !== latest.current.projectId) {
      next.targetId = undefined;
      next.scenarioId = undefined;
      next.configId = undefined;
    }
    latest.current = next;
    router.replace(`${pathname}${filtersToSearch(next)}`, { scroll: false });
  };

  const projects = useQuery(trpc.project.list.queryOptions());
  const scope = filters.projectId ? { projectId: filters.projectId } : undefined;
  const targets = useQuery(trpc.target.list.queryOptions(scope));
  const scenarios = useQuery(trpc.scenario.list.queryOptions(scope));
  const configs = useQuery(trpc.instanceConfig.list.queryOptions(scope));

  // Without a project filter, names can repeat across projects: say which project each is in.
  const projectName = new Map(projects.data?.map((p) => [p.id, p.name]));
  const named = (item: { projectId: string; name: string }) =>
    filters.projectId ? item.name : `${projectName.get(item.projectId) ?? "?"} / ${item.name}`;

  const runs = useInfiniteQuery({
    ...trpc.run.list.infiniteQueryOptions(listInput(filters, PAGE_SIZE), {
      getNextPageParam: (last) => last.nextCursor ?? null,
    }),
    // The previous list stays on screen while a changed filter loads, instead of a blank flash.
    placeholderData: keepPreviousData,
    refetchInterval: (q) =>
      q.state.data?.pages.some((p) => p.items.some((r) => r.status === "running" || r.status === "queued"))
        ? 2_000
        : false,
  });
  const items = runs.data?.pages.flatMap((p) => p.items) ?? [];
  const filtered = Object.keys(filters).some((k) => k !== "sort");

  const toggle = (id: string) =>
    setSelected((ids) => (ids.includes(id) ? ids.filter((x) => x !== id) : [...ids, id].slice(-MAX_COMPARE)));

  return (
    <div className="space-y-4">
      <section aria-label="Filters" className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
        <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4 xl:grid-cols-6">
          <SearchBox value={filters.q ?? ""} onChange={(q) => setFilters({ q: q || undefined })} />
          <FilterSelect
            id="filter-project"
            label="Project"
            value={filters.projectId}
            options={projects.data?.map((p) => ({ value: p.id, label: p.name }))}
            onChange={(v) => setFilters({ projectId: v })}
          />
          <FilterSelect
            id="filter-target"
            label="Target"
            value={filters.targetId}
            options={targets.data?.map((t) => ({ value: t.id, label: named(t) }))}
            onChange={(v) => setFilters({ targetId: v })}
          />
          <FilterSelect
            id="filter-scenario"
            label="Scenario"
            value={filters.scenarioId}
            options={scenarios.data?.map((s) => ({ value: s.id, label: named(s) }))}
            onChange={(v) => setFilters({ scenarioId: v })}
          />
          <FilterSelect
            id="filter-config"
            label="Instance config"
            value={filters.configId}
            options={configs.data?.map((c) => ({ value: c.id, label: named(c) }))}
            onChange={(v) => setFilters({ configId: v })}
          />
          <FilterSelect
            id="filter-status"
            label="Status"
            value={filters.status}
            options={STATUSES.map((s) => ({ value: s, label: s }))}
            onChange={(v) => setFilters({ status: v })}
          />
          <TextFilter
            id="filter-branch"
            label="Branch"
            value={filters.branch}
            onChange={(v) => setFilters({ branch: v })}
          />
          <TextFilter id="filter-tag" label="Tag" value={filters.tag} onChange={(v) => setFilters({ tag: v })} />
          <DateFilter id="filter-from" label="From" value={filters.from} onChange={(v) => setFilters({ from: v })} />
          <DateFilter id="filter-to" label="To" value={filters.to} onChange={(v) => setFilters({ to: v })} />
          <FilterSelect
            id="filter-sort"
            label="Sort"
            value={filters.sort ?? "newest"}
            options={SORTS}
            empty={null}
            onChange={(sort) => setFilters({ sort })}
          />
          {filters.sort === "metric" && <MetricSortControls filters={filters} onChange={setFilters} />}
          <MetricRangeFilter filters={filters} onChange={setFilters} />
        </div>
      </section>

      <div className="flex flex-wrap items-center justify-between gap-3">
        <p className="text-sm text-slate-600" aria-live="polite">
          {selected.length === 0
            ? "Select runs to compare them side by side."
            : `${selected.length} run${selected.length === 1 ? "" : "s"} selected${selected.length === MAX_COMPARE ? " (the most a comparison takes)" : ""}.`}
        </p>
        <div className="flex gap-2">
          <Button
            variant="secondary"
            disabled={!filtered && !filters.sort}
            onClick={() => router.replace(pathname, { scroll: false })}
          >
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

      {runs.isPending ? (
        <Skeleton className="h-40" label="Loading runs" />
      ) : runs.isError ? (
        <ErrorState message={errorMessage(runs.error)} onRetry={() => runs.refetch()} />
      ) : items.length === 0 ? (
        filtered ? (
          <EmptyState title="No runs match these filters">Clear a filter or widen the date range.</EmptyState>
        ) : (
          <EmptyState title="No runs yet">Launch one from a project, or upload results from CI.</EmptyState>
        )
      ) : (
        <div
          className={`overflow-x-auto rounded-lg border border-slate-200 bg-white shadow-sm transition-opacity ${runs.isPlaceholderData ? "opacity-60" : ""}`}
          aria-busy={runs.isPlaceholderData}
        >
          <table className="w-full text-sm" aria-label="Runs">
            <thead className="bg-slate-50 text-left text-xs uppercase text-slate-500">
              <tr>
                <th className="w-8 px-3 py-2">
                  <span className="sr-only">Select</span>
                </th>
                <th className="px-3 py-2">Run</th>
                <th className="px-3 py-2">Status</th>
                <th className="px-3 py-2">Project</th>
                <th className="px-3 py-2">Scenario</th>
                <th className="px-3 py-2">Target · config</th>
                <th className="px-3 py-2">Branch · tags</th>
                <th className="px-3 py-2 text-right">Rate</th>
                <th className="px-3 py-2 text-right">p99</th>
                <th className="px-3 py-2">Started</th>
              </tr>
            </thead>
            <tbody>
              {items.map((r) => {
                const m = (r.result?.metrics ?? {}) as Record<string, number>;
                const checked = selected.includes(r.id);
                return (
                  <tr key={r.id} className={`border-t border-slate-100 ${checked ? "bg-sky-50" : "hover:bg-slate-50"}`}>
                    <td className="px-3 py-2">
                      <input
                        type="checkbox"
                        aria-label={`Select run #${r.number} of ${r.project.name}`}
                        checked={checked}
                        onChange={() => toggle(r.id)}
                      />
                    </td>
                    <td className="px-3 py-2 whitespace-nowrap">
                      <Link href={`/runs/${r.id}`} className="font-medium text-sky-700 hover:underline">
                        #{r.number}
                      </Link>
                      {r.sweepLabel !== null ? (
                        <span className="ml-1 text-xs text-slate-500" title="Sweep value">
                          {r.sweepLabel}
                        </span>
                      ) : (
                        r.groupIndex !== null && (
                          <span className="ml-1 text-xs text-slate-500" title="Repetition within its group">
                            rep {r.groupIndex + 1}
                          </span>
                        )
                      )}
                    </td>
                    <td className="px-3 py-2">
                      <StatusBadge status={r.status} />
                      <ReadingBadge
                        reading={r.result?.reading}
                        saturationReasons={r.result?.saturationReasons}
                        headline={r.result?.saturation}
                      />
                      {r.excluded && <span className="ml-1 text-xs text-amber-700">excluded</span>}
                    </td>
                    <td className="px-3 py-2">{r.project.name}</td>
                    <td className="px-3 py-2">
                      {r.scenarioName || "—"}
                      {r.source !== "launched" && <span className="ml-1 text-xs text-slate-500">({r.source})</span>}
                      {r.label && <div className="text-xs text-slate-500">{r.label}</div>}
                    </td>
                    <td className="px-3 py-2">
                      {r.target?.name ?? "—"}
                      {r.instanceConfig && <span className="text-slate-500"> · {r.instanceConfig.name}</span>}
                    </td>
                    <td className="px-3 py-2 text-xs">
                      {r.branch && <span className="mr-1 font-mono text-slate-700">{r.branch}</span>}
                      {r.tags.map((t) => (
                        <button
                          type="button"
                          key={t}
                          onClick={() => setFilters({ tag: t })}
                          className="mr-1 rounded bg-slate-100 px-1.5 py-0.5 text-slate-700 hover:bg-sky-100"
                          title={`Show runs tagged ${t}`}
                        >
                          {t}
                        </button>
                      ))}
                    </td>
                    <td className="px-3 py-2 text-right tabular-nums">
                      {r.result?.rate ? formatMetric(r.result.rate.metric, r.result.rate.value) : "—"}
                    </td>
                    <td className="px-3 py-2 text-right tabular-nums">{formatMetric("latency_p99", m.latency_p99)}</td>
                    <td className="px-3 py-2 whitespace-nowrap text-slate-600">
                      {new Date(r.startedAt ?? r.createdAt).toLocaleString()}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
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

/** A text filter that updates the URL when typing pauses, not on every key. */
function useDebounced(value: string, onChange: (v: string) => void) {
  const [text, setText] = useState(value);
  const latest = useRef(onChange);
  latest.current = onChange;
  useEffect(() => setText(value), [value]);
  useEffect(() => {
    if (text.trim() === value) return;
    const timer = setTimeout(() => latest.current(text.trim()), 350);
    return () => clearTimeout(timer);
  }, [text, value]);
  return [text, setText] as const;
}

function SearchBox({ value, onChange }: { value: string; onChange: (v: string) => void }) {
  const [text, setText] = useDebounced(value, onChange);
  return (
    <FilterField id="filter-search" label="Search" className="sm:col-span-2">
      <input
        id="filter-search"
        type="search"
        className={filterControlClass}
        placeholder="Scenario name, notes or tag"
        value={text}
        onChange={(e) => setText(e.target.value)}
      />
    </FilterField>
  );
}

function TextFilter({
  id,
  label,
  value,
  onChange,
}: {
  id: string;
  label: string;
  value: string | undefined;
  onChange: (v: string | undefined) => void;
}) {
  const [text, setText] = useDebounced(value ?? "", (v) => onChange(v || undefined));
  return (
    <FilterField id={id} label={label}>
      <input id={id} className={filterControlClass} value={text} onChange={(e) => setText(e.target.value)} />
    </FilterField>
  );
}

function DateFilter({
  id,
  label,
  value,
  onChange,
}: {
  id: string;
  label: string;
  value: string | undefined;
  onChange: (v: string | undefined) => void;
}) {
  return (
    <FilterField id={id} label={label}>
      <input
        id={id}
        type="date"
        className={filterControlClass}
        value={value ?? ""}
        onChange={(e) => onChange(e.target.value || undefined)}
      />
    </FilterField>
  );
}
