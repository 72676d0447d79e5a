"use client";

import { formatDeltaPct, formatMetric, metricDef } from "@benchboard/core";
import { Card, EmptyState, ErrorState, Skeleton } from "@benchboard/ui";
import { TrendChart, type TrendPoint } from "@benchboard/ui/charts/trend-chart";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCanEdit } from "~/app/_components/use-can-edit";
import { useTRPC } from "~/trpc/client";
import { errorMessage } from "~/trpc/errors";
import { ThresholdsEditor } from "./thresholds-editor";
import { trendSelection } from "./trend-selection";

const NO_BRANCH = "(no branch)";

export function TrendView() {
  const trpc = useTRPC();
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const canEdit = useCanEdit();
  const options = useQuery(trpc.trend.options.queryOptions());
  const projects = options.data ?? [];
  const { project, scenario, metric, input } = trendSelection(projects, (name) => params.get(name));
  const branch = input?.branch ?? null;
  const config = input?.config ?? null;
  const load = input?.load ?? null;
  const shards = input?.shards ?? null;
  const trend = useQuery({
    ...trpc.trend.view.queryOptions(
      input ?? { projectId: "", scenarioName: "", metric, branch: null, config: null, load: null, shards: null },
    ),
    enabled: input !== null,
    placeholderData: (prev) => prev,
  });
  const go = (patch: Record<string, string | null>) => {
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(patch)) {
      if (v) next.set(k, v);
      else next.delete(k);
    }
    router.replace(`${pathname}?${next.toString()}`, { scroll: false });
  };

  if (options.isPending) return <Skeleton className="h-40" label="Loading trends" />;
  if (options.isError) return <ErrorState message={errorMessage(options.error)} onRetry={() => options.refetch()} />;
  if (!project) return <EmptyState title="No projects yet" />;

  const data = trend.data;
  const branches = data ? [...new Set(data.points.map((p) => p.branch ?? NO_BRANCH))] : [];
  const chartData: TrendPoint[] = (data?.points ?? []).map((p, index) => ({
    index,
    label: `#${p.number}`,
    t: new Date(p.at).getTime(),
    ...Object.fromEntries(
      branches.map((b) => [b, !p.excluded && !p.invalid && (p.branch ?? NO_BRANCH) === b ? p.value : null]),
    ),
    excluded: p.excluded ? p.value : null,
    invalid: p.invalid && !p.excluded ? p.value : null,
  }));
  const invalidCount = (data?.points ?? []).filter((p) => p.invalid && !p.excluded).length;
  const excluded = (data?.points ?? []).filter((p) => p.excluded);
  const changePoints = data?.changePoints ?? [];
  const atOf = new Map((data?.points ?? []).map((p) => [p.runId, new Date(p.at).getTime()]));
  const changeText = (c: (typeof changePoints)[number]) =>
    `#${c.number}: ${c.change === null ? "from 0" : formatDeltaPct(c.change)} (${formatMetric(metric, c.before)} → ${formatMetric(metric, c.after)})`;
  const measured = (data?.points ?? []).filter((p) => p.value !== null);

  return (
    <div className="space-y-6">
      <section
        aria-label="Trend filters"
        className="flex flex-wrap gap-3 rounded-lg border border-slate-200 bg-white p-4 shadow-sm"
      >
        <Select
          label="Project"
          id="trend-project"
          value={project.id}
          onChange={(v) => go({ projectId: v, scenario: null, branch: null })}
        >
          {projects.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </Select>
        <Select
          label="Scenario"
          id="trend-scenario"
          value={scenario ?? ""}
          onChange={(v) => go({ projectId: project.id, scenario: v })}
        >
          {project.scenarios.length === 0 && <option value="">No finished runs</option>}
          {project.scenarios.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </Select>
        <Select
          label="Metric"
          id="trend-metric"
          value={metric}
          onChange={(v) => go({ projectId: project.id, metric: v })}
        >
          {[...new Set([metric, ...(data?.metrics ?? [])])].map((k) => (
            <option key={k} value={k}>
              {metricDef(k).label} ({metricDef(k).unit})
            </option>
          ))}
        </Select>
        <Select
          label="Branch"
          id="trend-branch"
          value={branch ?? ""}
          onChange={(v) => go({ projectId: project.id, branch: v })}
        >
          <option value="">All branches</option>
          {project.branches.map((b) => (
            <option key={b} value={b}>
              {b}
            </option>
          ))}
        </Select>
        <Select
          label="Config"
          id="trend-config"
          value={config ?? ""}
          onChange={(v) => go({ projectId: project.id, config: v })}
        >
          <option value="">All configs</option>
          {[...new Set([...(config ? [config] : []), ...(data?.configs ?? [])])].map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </Select>
        <Select
          label="Load"
          id="trend-load"
          value={load ?? ""}
          onChange={(v) => go({ projectId: project.id, load: v })}
        >
          <option value="">All loads</option>
          {[...new Set([...(load ? [load] : []), ...(data?.loads ?? [])])].map((l) => (
            <option key={l} value={l}>
              {l}
            </option>
          ))}
        </Select>
        <Select
          label="Shards"
          id="trend-shards"
          value={shards ? String(shards) : ""}
          onChange={(v) => go({ projectId: project.id, shards: v })}
        >
          <option value="">All shard counts</option>
          {[...new Set([...(shards ? [shards] : []), ...(data?.shardCounts ?? [])])]
            .sort((a, b) => a - b)
            .map((n) => (
              <option key={n} value={String(n)}>
                {n === 1 ? "1 shard" : `${n} shards`}
              </option>
            ))}
        </Select>
      </section>

      <Card title={`${metricDef(metric).label} (${metricDef(metric).unit}) over ${scenario ?? "—"}`}>
        {!scenario ? (
          <EmptyState title="This project has no finished runs yet" />
        ) : trend.isPending ? (
          <Skeleton className="h-72" label="Loading trend" />
        ) : trend.isError ? (
          <ErrorState message={errorMessage(trend.error)} onRetry={() => trend.refetch()} />
        ) : measured.length === 0 ? (
          <EmptyState title={`No run of this scenario has ${metricDef(metric).label.toLowerCase()}`}>
            Pick another metric.
          </EmptyState>
        ) : (
          <>
            <TrendChart
              data={chartData}
              branches={branches.map((b) => ({ key: b, label: b }))}
              format={(v) => formatMetric(metric, v)}
              thresholds={(data?.thresholds ?? []).map((t) => ({
                label: `threshold ${t.op} ${formatMetric(metric, t.value)}`,
                value: t.value,
              }))}
              changePoints={changePoints.map((c) => ({
                t: atOf.get(c.runId) ?? 0,
                label: `change ${c.change === null ? "" : formatDeltaPct(c.change)} at #${c.number}`,
              }))}
            />
            <p className="mt-2 text-xs text-slate-500">
              {data?.points.length} runs over time, oldest first; sweep runs are left out (they vary the scenario). Grey
              points are excluded runs, kept off the lines. Dashed red lines are thresholds; purple lines mark change
              points found by e-divisive means (permutation test, p ≤ 0.01).
              {invalidCount > 0 &&
                ` Hollow amber points (${invalidCount}) are not valid measurements — their figures may be the load generator's rather than the target's — kept off the lines and out of change points and gate baselines.`}
            </p>
            {changePoints.length > 0 ? (
              <ul aria-label="Change points" className="mt-2 space-y-0.5 text-sm text-violet-800">
                {changePoints.map((c) => (
                  <li key={c.runId}>
                    Change point at run{" "}
                    <Link href={`/runs/${c.runId}`} className="font-medium hover:underline">
                      {changeText(c)}
                    </Link>
                    {c.branch ? ` on ${c.branch}` : ""}, p = {c.pValue.toPrecision(2)}
                    {c.configChange && (
                      <span className="text-amber-800">
                        {" "}
                        — the config changed here ({c.configChange.from ?? "none"} → {c.configChange.to ?? "none"}
                        ): filter by config before reading it as a regression
                      </span>
                    )}
                    {c.loadChange && (
                      <span className="text-amber-800">
                        {" "}
                        — the load changed here ({c.loadChange.from ?? "unknown"} → {c.loadChange.to ?? "unknown"})
                      </span>
                    )}
                    {c.shardsChange && (
                      <span className="text-amber-800">
                        {" "}
                        — the shard count changed here ({c.shardsChange.from} → {c.shardsChange.to})
                      </span>
                    )}
                  </li>
                ))}
              </ul>
            ) : (
              <p className="mt-2 text-sm text-slate-500">No change point in this history.</p>
            )}
          </>
        )}
      </Card>

      <div className="grid gap-6 lg:grid-cols-2">
        <Card title="Excluded runs">
          {excluded.length === 0 ? (
            <p className="text-sm text-slate-500">None of these runs is excluded.</p>
          ) : (
            <ul className="space-y-1 text-sm" aria-label="Excluded runs">
              {excluded.map((p) => (
                <li key={p.runId} className="text-slate-600">
                  <Link href={`/runs/${p.runId}`} className="font-medium text-sky-700 hover:underline">
                    #{p.number}
                  </Link>{" "}
                  {formatMetric(metric, p.value)} — {p.excludedReason}
                </li>
              ))}
            </ul>
          )}
        </Card>
        <Card title={`Thresholds for ${project.name}`}>
          <ThresholdsEditor key={project.id} projectId={project.id} canEdit={canEdit} />
        </Card>
      </div>
    </div>
  );
}

function Select({
  label,
  id,
  value,
  onChange,
  children,
}: {
  label: string;
  id: string;
  value: string;
  onChange: (v: string) => void;
  children: React.ReactNode;
}) {
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-xs font-medium text-slate-600">
        {label}
      </label>
      <select
        id={id}
        className="rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm"
        value={value}
        onChange={(e) => onChange(e.target.value)}
      >
        {children}
      </select>
    </div>
  );
}
