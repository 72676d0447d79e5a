"use client";

import type { RouterOutputs } from "@benchboard/api";
import { formatMetric } from "@benchboard/core";
import type { Column } from "@benchboard/ui";
import Link from "next/link";
import { LocalTime } from "~/app/_components/local-time";
import { RunStatus } from "~/app/_components/run-status";

export type RunItem = RouterOutputs["run"]["list"]["items"][number];

/** The runs list's columns: a compare checkbox, then what tells runs apart. */
export function runColumns({
  selected,
  toggle,
  onTag,
}: {
  selected: readonly string[];
  toggle: (id: string) => void;
  onTag: (tag: string) => void;
}): Column<RunItem>[] {
  return [
    {
      key: "select",
      srHeader: "Select",
      className: "w-8",
      cell: (r) => (
        <input
          type="checkbox"
          aria-label={`Select run #${r.number} of ${r.project.name}`}
          checked={selected.includes(r.id)}
          onChange={() => toggle(r.id)}
        />
      ),
    },
    {
      key: "run",
      header: "Run",
      className: "whitespace-nowrap",
      cell: (r) => (
        <>
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
        </>
      ),
    },
    {
      key: "status",
      header: "Status",
      cell: (r) => (
        <>
          <RunStatus status={r.status} result={r.result} />
          {r.excluded && <span className="ml-1 text-xs text-amber-700">excluded</span>}
        </>
      ),
    },
    { key: "project", header: "Project", cell: (r) => r.project.name },
    {
      key: "scenario",
      header: "Scenario",
      cell: (r) => (
        <>
          {r.scenarioName || "—"}
          {r.source !== "launched" && <span className="ml-1 text-xs text-slate-500">({r.source})</span>}
          {r.label && <div className="text-xs text-slate-500">{r.label}</div>}
        </>
      ),
    },
    {
      key: "target",
      header: "Target · config",
      cell: (r) => (
        <>
          {r.target?.name ?? "—"}
          {r.instanceConfig && <span className="text-slate-500"> · {r.instanceConfig.name}</span>}
        </>
      ),
    },
    {
      key: "branch",
      header: "Branch · tags",
      className: "text-xs",
      cell: (r) => (
        <>
          {r.branch && <span className="mr-1 font-mono text-slate-700">{r.branch}</span>}
          {r.tags.map((t) => (
            <button
              type="button"
              key={t}
              onClick={() => onTag(t)}
              className="mr-1 rounded bg-slate-100 px-1.5 py-0.5 text-slate-700 hover:bg-sky-100"
              title={`Show runs tagged ${t}`}
            >
              {t}
            </button>
          ))}
        </>
      ),
    },
    {
      key: "rate",
      header: "Rate",
      align: "right",
      className: "tabular-nums",
      cell: (r) => (r.result?.rate ? formatMetric(r.result.rate.metric, r.result.rate.value) : "—"),
    },
    {
      key: "p99",
      header: "p99",
      align: "right",
      className: "tabular-nums",
      cell: (r) => formatMetric("latency_p99", (r.result?.metrics as Record<string, number> | undefined)?.latency_p99),
    },
    {
      key: "started",
      header: "Started",
      className: "whitespace-nowrap text-slate-600",
      cell: (r) => <LocalTime value={r.startedAt ?? r.createdAt} />,
    },
  ];
}
