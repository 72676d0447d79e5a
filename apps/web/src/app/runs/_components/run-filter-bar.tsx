"use client";

import { useQuery } from "@tanstack/react-query";
import { DateFilter, FilterSelect, TextFilter } from "~/app/_components/list-kit";
import { useTRPC } from "~/trpc/client";
import { MetricRangeFilter, MetricSortControls } from "./metric-controls";
import { type Filters, SORTS, STATUSES } from "./run-filters";

/** The runs list's filters; every change lands in the address. */
export function RunFilterBar({ filters, onChange }: { filters: Filters; onChange: (patch: Filters) => void }) {
  const trpc = useTRPC();
  const projects = useQuery(trpc.project.list.queryOptions());
  const scope = filters.projectId ? { projectId: filters.projectId } : undefined;
  const targets = useQuery(trpc.target.list.queryOptions(scope));
  const scenarios = useQuery(trpc.scenario.list.queryOptions(scope));
  const configs = useQuery(trpc.instanceConfig.list.queryOptions(scope));

  // Without a project filter, names can repeat across projects: say which project each is in.
  const projectName = new Map(projects.data?.map((p) => [p.id, p.name]));
  const named = (item: { projectId: string; name: string }) =>
    filters.projectId ? item.name : `${projectName.get(item.projectId) ?? "?"} / ${item.name}`;
  type Named = { id: string; projectId: string; name: string };
  const choices = (items: Named[] | undefined) => items?.map((i) => ({ value: i.id, label: named(i) }));
  // The choices narrowed by the project filter.
  const scoped: [keyof Filters & ("targetId" | "scenarioId" | "configId"), string, string, Named[] | undefined][] = [
    ["targetId", "filter-target", "Target", targets.data],
    ["scenarioId", "filter-scenario", "Scenario", scenarios.data],
    ["configId", "filter-config", "Instance config", configs.data],
  ];

  return (
    <section aria-label="Filters" className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
      <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4 xl:grid-cols-6">
        <TextFilter
          id="filter-search"
          type="search"
          label="Search"
          className="sm:col-span-2"
          placeholder="Scenario name, notes or tag"
          value={filters.q}
          onChange={(q) => onChange({ q })}
        />
        <FilterSelect
          id="filter-project"
          label="Project"
          value={filters.projectId}
          options={projects.data?.map((p) => ({ value: p.id, label: p.name }))}
          onChange={(v) => onChange({ projectId: v })}
        />
        {scoped.map(([key, id, label, items]) => (
          <FilterSelect
            key={key}
            id={id}
            label={label}
            value={filters[key]}
            options={choices(items)}
            onChange={(v) => onChange({ [key]: v })}
          />
        ))}
        <FilterSelect
          id="filter-status"
          label="Status"
          value={filters.status}
          options={STATUSES.map((s) => ({ value: s, label: s }))}
          onChange={(v) => onChange({ status: v })}
        />
        <TextFilter
          id="filter-branch"
          label="Branch"
          value={filters.branch}
          onChange={(v) => onChange({ branch: v })}
        />
        <TextFilter id="filter-tag" label="Tag" value={filters.tag} onChange={(v) => onChange({ tag: v })} />
        <DateFilter id="filter-from" label="From" value={filters.from} onChange={(v) => onChange({ from: v })} />
        <DateFilter id="filter-to" label="To" value={filters.to} onChange={(v) => onChange({ to: v })} />
        <FilterSelect
          id="filter-sort"
          label="Sort"
          value={filters.sort ?? "newest"}
          options={SORTS}
          empty={null}
          onChange={(sort) => onChange({ sort })}
        />
        {filters.sort === "metric" && <MetricSortControls filters={filters} onChange={onChange} />}
        <MetricRangeFilter filters={filters} onChange={onChange} />
      </div>
    </section>
  );
}
