"use client";

import type { RouterOutputs } from "@benchboard/api";
import { Card, StatusBadge } from "@benchboard/ui";
import { ComparisonReport } from "~/app/compare/_components/comparison-report";
import { RunReport } from "~/app/runs/[runId]/_components/run-report";
import { Snapshots } from "~/app/runs/[runId]/_components/run-snapshots";

type Shared = RouterOutputs["share"]["view"];
type SharedRunData = Extract<Shared, { kind: "run" }>;
type SharedComparisonData = Extract<Shared, { kind: "comparison" }>["comparison"];

function Frame({
  title,
  subtitle,
  expiresAt,
  children,
}: {
  title: React.ReactNode;
  subtitle: React.ReactNode;
  expiresAt: Date | null;
  children: React.ReactNode;
}) {
  return (
    <div className="mx-auto max-w-7xl space-y-6 px-8 py-6">
      <header className="flex items-start justify-between gap-4 border-b border-slate-200 pb-4">
        <div>
          <p className="text-xs font-medium uppercase tracking-wide text-slate-500">Shared read-only results</p>
          <h1 className="mt-1 text-2xl font-semibold tracking-tight text-slate-900">{title}</h1>
          <p className="mt-1 text-sm text-slate-600">{subtitle}</p>
        </div>
        <p className="text-right text-xs text-slate-500">
          Benchboard
          <br />
          {expiresAt ? `link expires ${new Date(expiresAt).toLocaleDateString()}` : "link does not expire"}
        </p>
      </header>
      {children}
    </div>
  );
}

export function SharedRun({
  view,
  chart,
  expiresAt,
}: {
  view: SharedRunData["run"];
  chart: SharedRunData["chart"];
  expiresAt: Date | null;
}) {
  const run = view.run;
  return (
    <Frame
      expiresAt={expiresAt}
      title={
        <span className="flex items-center gap-3">
          {run.title} <StatusBadge status={run.status} />
        </span>
      }
      subtitle={
        <>
          {run.project.name}
          {run.scenarioName && ` · scenario “${run.scenarioName}”`}
          {view.target && ` · ${view.target.name}`}
          {run.source !== "launched" && ` · ${run.source}`}
          {run.branch && ` · ${run.branch}`}
          {run.startedAt && ` · started ${new Date(run.startedAt).toLocaleString()}`}
        </>
      }
    >
      {run.excluded && (
        <div className="rounded-lg border border-slate-300 bg-slate-100 px-4 py-3 text-sm text-slate-700">
          <span className="font-semibold">Excluded from sweeps and trends: </span>
          {run.excludedReason}
        </div>
      )}
      <RunReport view={view} chart={chart} readOnly />
      {(run.notes || run.tags.length > 0) && (
        <Card title="Notes and tags">
          {run.notes && <p className="whitespace-pre-wrap text-sm text-slate-700">{run.notes}</p>}
          {run.tags.length > 0 && <p className="mt-2 text-xs text-slate-500">Tags: {run.tags.join(", ")}</p>}
        </Card>
      )}
      <Snapshots view={view} />
    </Frame>
  );
}

export function SharedComparison({ data, expiresAt }: { data: SharedComparisonData; expiresAt: Date | null }) {
  return (
    <Frame
      expiresAt={expiresAt}
      title={data.comparison.title}
      subtitle={`${data.comparison.project?.name ?? "Runs from several projects"} · ${data.view.runs.length} runs`}
    >
      {data.comparison.notes && <p className="max-w-4xl text-sm text-slate-700">{data.comparison.notes}</p>}
      <ComparisonReport view={data.view} />
    </Frame>
  );
}
