"use client";

import { formatMetric, METRICS, metricDef, type TThreshold } from "@benchboard/core";
import { Button, ErrorState, inputClass, Skeleton } from "@benchboard/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "~/trpc/client";
import { errorMessage, fieldErrors } from "~/trpc/errors";

const OPS = ["<", "<=", ">", ">=", "=="] as const;
const CHOICES = METRICS.filter((m) => m.direction !== "neutral").map((m) => m.key);

/** A project's thresholds: the pass/fail goals every run of the project is judged against. */
export function ThresholdsEditor({ projectId, canEdit }: { projectId: string; canEdit: boolean }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const stored = useQuery(trpc.trend.thresholds.queryOptions({ projectId }));
  const [draft, setDraft] = useState<{ key: string; metric: string; op: TThreshold["op"]; value: string }[] | null>(
    null,
  );
  const save = useMutation(
    trpc.trend.setThresholds.mutationOptions({
      onSuccess: async () => {
        setDraft(null);
        await qc.invalidateQueries({ queryKey: trpc.trend.pathKey() });
        await qc.invalidateQueries({ queryKey: trpc.sweep.pathKey() });
      },
    }),
  );
  if (stored.isPending) return <Skeleton className="h-16" label="Loading thresholds" />;
  if (stored.isError) return <ErrorState message={errorMessage(stored.error)} onRetry={() => stored.refetch()} />;
  const rows = draft ?? stored.data.map((t, i) => ({ ...t, key: `stored-${i}`, value: String(t.value) }));
  const errors = fieldErrors(save.error);
  const set = (i: number, patch: Partial<(typeof rows)[number]>) =>
    setDraft(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));

  if (!canEdit) {
    return stored.data.length === 0 ? (
      <p className="text-sm text-slate-500">No thresholds.</p>
    ) : (
      <ul className="text-sm" aria-label="Thresholds">
        {stored.data.map((t) => (
          <li key={`${t.metric}${t.op}${t.value}`}>
            {metricDef(t.metric).label} {t.op} {formatMetric(t.metric, t.value)}
          </li>
        ))}
      </ul>
    );
  }
  return (
    <form
      className="space-y-2"
      aria-label="Project thresholds"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate({
          projectId,
          thresholds: rows.map((r) => ({ metric: r.metric, op: r.op, value: Number(r.value) })),
        });
      }}
    >
      {rows.length === 0 && <p className="text-sm text-slate-500">No thresholds yet.</p>}
      {rows.map((r, i) => (
        <div key={r.key} className="flex flex-wrap items-center gap-2">
          <select
            aria-label={`Threshold ${i + 1} metric`}
            className={inputClass}
            value={r.metric}
            onChange={(e) => set(i, { metric: e.target.value })}
          >
            {[...new Set([r.metric, ...CHOICES])].map((k) => (
              <option key={k} value={k}>
                {metricDef(k).label} ({metricDef(k).unit})
              </option>
            ))}
          </select>
          <select
            aria-label={`Threshold ${i + 1} comparison`}
            className={inputClass}
            value={r.op}
            onChange={(e) => set(i, { op: e.target.value as TThreshold["op"] })}
          >
            {OPS.map((op) => (
              <option key={op} value={op}>
                {op}
              </option>
            ))}
          </select>
          <input
            aria-label={`Threshold ${i + 1} value`}
            type="number"
            step="any"
            className={`${inputClass} w-32`}
            value={r.value}
            onChange={(e) => set(i, { value: e.target.value })}
          />
          <span className="text-xs text-slate-500">{metricDef(r.metric).unit}</span>
          <Button
            variant="secondary"
            className="px-2 py-0.5 text-xs"
            onClick={() => setDraft(rows.filter((_, j) => j !== i))}
          >
            Remove
          </Button>
          {Object.entries(errors)
            .filter(([k]) => k.startsWith(`thresholds.${i}.`))
            .map(([k, m]) => (
              <span key={k} className="text-xs text-rose-700" role="alert">
                {m}
              </span>
            ))}
        </div>
      ))}
      <div className="flex gap-2">
        <Button
          variant="secondary"
          onClick={() => setDraft([...rows, { key: `new-${Date.now()}`, metric: "latency_p99", op: "<", value: "" }])}
        >
          Add threshold
        </Button>
        <Button type="submit" disabled={draft === null || save.isPending}>
          {save.isPending ? "Saving…" : "Save thresholds"}
        </Button>
        {save.isError && Object.keys(errors).length === 0 && (
          <span className="text-sm text-rose-700">{errorMessage(save.error)}</span>
        )}
      </div>
      <p className="text-xs text-slate-500">Runs are judged when they end; sweeps show the current thresholds.</p>
    </form>
  );
}
