"use client";

import { formatMetric } from "@benchboard/core";
import { Button, inputClass, Skeleton } from "@benchboard/ui";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { RunStatus } from "~/app/_components/run-status";
import { useTRPC } from "~/trpc/client";
import { errorMessage } from "~/trpc/errors";
import { pickerRunsInput } from "./compare-params";

/**
 * Find finished runs to add to a comparison (searches scenario, tags, branch and notes), within
 * one project: the project of the runs already chosen, unless another is picked.
 */
export function RunPicker({
  chosen,
  chosenProjectId,
  onAdd,
  full,
}: {
  chosen: readonly string[];
  /** The project of the first chosen run, which scopes the list by default. */
  chosenProjectId: string | null;
  onAdd: (id: string) => void;
  full: boolean;
}) {
  const trpc = useTRPC();
  const [search, setSearch] = useState("");
  const [picked, setPicked] = useState<string | null>(null);
  const projects = useQuery(trpc.project.list.queryOptions());
  const projectId = picked ?? chosenProjectId ?? "";
  const runs = useQuery(trpc.run.list.queryOptions(pickerRunsInput(projectId, search)));
  return (
    <div>
      <label htmlFor="run-picker-project" className="text-sm font-medium text-slate-700">
        Project
      </label>
      <select
        id="run-picker-project"
        className={`${inputClass} mt-1 mb-3 w-full`}
        value={projectId}
        onChange={(e) => setPicked(e.target.value)}
      >
        <option value="">All projects</option>
        {(projects.data ?? []).map((p) => (
          <option key={p.id} value={p.id}>
            {p.name}
          </option>
        ))}
      </select>
      <label htmlFor="run-picker-search" className="text-sm font-medium text-slate-700">
        Add runs
      </label>
      <input
        id="run-picker-search"
        className={`${inputClass} mt-1 w-full`}
        placeholder="Search scenario, tag, branch…"
        value={search}
        onChange={(e) => setSearch(e.target.value)}
      />
      <div className="mt-2 max-h-72 overflow-y-auto rounded border border-slate-200">
        {runs.isPending ? (
          <Skeleton className="h-24" label="Loading runs" />
        ) : runs.isError ? (
          <p className="p-3 text-sm text-rose-700">{errorMessage(runs.error)}</p>
        ) : runs.data.items.length === 0 ? (
          <p className="p-3 text-sm text-slate-500">No finished runs match.</p>
        ) : (
          <table className="w-full text-sm" aria-label="Runs to add">
            <tbody>
              {runs.data.items.map((r) => {
                const m = (r.result?.metrics ?? {}) as Record<string, number>;
                const added = chosen.includes(r.id);
                return (
                  <tr key={r.id} className="border-t border-slate-100 first:border-0">
                    <td className="px-2 py-1.5 text-slate-700">
                      <div className="font-medium text-slate-900">{r.title}</div>
                      <div className="text-xs text-slate-500">
                        {r.project.name} · scenario “{r.scenarioName}”
                        {r.instanceConfig && !r.label && ` · ${r.instanceConfig.name}`}
                        {r.tags.length > 0 && ` · ${r.tags.join(", ")}`}
                      </div>
                    </td>
                    <td className="px-2 py-1.5">
                      <RunStatus status={r.status} result={r.result} />
                    </td>
                    <td className="px-2 py-1.5 text-right tabular-nums text-slate-600">
                      {m.rps !== undefined ? formatMetric("rps", m.rps) : formatMetric("throughput", m.throughput)}
                    </td>
                    <td className="px-2 py-1.5 text-right">
                      <Button
                        variant="secondary"
                        className="px-2 py-0.5 text-xs"
                        disabled={added || full}
                        aria-label={`Add run #${r.number} of ${r.project.name}`}
                        onClick={() => onAdd(r.id)}
                      >
                        {added ? "Added" : "Add"}
                      </Button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
      </div>
    </div>
  );
}
