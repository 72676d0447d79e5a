"use client";

import { METRICS, type TThreshold } from "@benchboard/core";
import { Button, Card } from "@benchboard/ui";
import { InlineError, nextRowKey, smallInputClass } from "~/app/_components/form-kit";
import { OPS, type ThresholdRow } from "./scenario-form";

/** A scenario's thresholds: pass/fail checks on every run of it, one row each. */
export function ThresholdRows({
  rows,
  errors,
  onChange,
}: {
  rows: ThresholdRow[];
  errors: Record<string, string>;
  onChange: (rows: ThresholdRow[]) => void;
}) {
  return (
    <Card
      title="Thresholds"
      actions={
        <Button
          variant="secondary"
          onClick={() => onChange([...rows, { key: nextRowKey(), metric: "latency_p99", op: "<", value: "" }])}
        >
          Add threshold
        </Button>
      }
    >
      {rows.length === 0 ? (
        <p className="text-sm text-slate-500">
          Pass/fail checks on every run of this scenario, e.g. p99 latency below 100 ms or success rate at least 99.9%.
        </p>
      ) : (
        <div className="space-y-2" role="list" aria-label="Thresholds">
          {rows.map((t, i) => {
            const n = i + 1;
            const metricErr = errors[`thresholds.${i}.metric`];
            const valueErr = errors[`thresholds.${i}.value`];
            const row = (p: Partial<ThresholdRow>) => onChange(rows.map((r) => (r.key === t.key ? { ...r, ...p } : r)));
            return (
              <div key={t.key} role="listitem" className="grid grid-cols-[1.6fr_0.5fr_1fr_auto] items-start gap-3">
                <div>
                  <label htmlFor={`threshold-${t.key}-metric`} className="sr-only">
                    Threshold {n} metric
                  </label>
                  <select
                    id={`threshold-${t.key}-metric`}
                    className={smallInputClass}
                    value={t.metric}
                    onChange={(e) => row({ metric: e.target.value })}
                    aria-invalid={!!metricErr}
                  >
                    {!METRICS.some((m) => m.key === t.metric) && <option value={t.metric}>{t.metric}</option>}
                    {METRICS.filter((m) => !m.derived).map((m) => (
                      <option key={m.key} value={m.key}>
                        {m.label} ({m.unit})
                      </option>
                    ))}
                  </select>
                  <InlineError id={`threshold-${t.key}-metric-error`} message={metricErr} />
                </div>
                <div>
                  <label htmlFor={`threshold-${t.key}-op`} className="sr-only">
                    Threshold {n} comparison
                  </label>
                  <select
                    id={`threshold-${t.key}-op`}
                    className={smallInputClass}
                    value={t.op}
                    onChange={(e) => row({ op: e.target.value as TThreshold["op"] })}
                  >
                    {OPS.map((op) => (
                      <option key={op}>{op}</option>
                    ))}
                  </select>
                </div>
                <div>
                  <label htmlFor={`threshold-${t.key}-value`} className="sr-only">
                    Threshold {n} value
                  </label>
                  <input
                    id={`threshold-${t.key}-value`}
                    inputMode="decimal"
                    className={smallInputClass}
                    value={t.value}
                    onChange={(e) => row({ value: e.target.value })}
                    aria-invalid={!!valueErr}
                    aria-describedby={valueErr ? `threshold-${t.key}-value-error` : undefined}
                  />
                  <InlineError id={`threshold-${t.key}-value-error`} message={valueErr} />
                </div>
                <button
                  type="button"
                  className="py-1 text-sm text-rose-700 hover:underline"
                  aria-label={`Remove threshold ${n}`}
                  onClick={() => onChange(rows.filter((r) => r.key !== t.key))}
                >
                  Remove
                </button>
              </div>
            );
          })}
        </div>
      )}
    </Card>
  );
}
