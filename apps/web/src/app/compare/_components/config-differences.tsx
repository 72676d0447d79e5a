"use client";

import type { RouterOutputs } from "@benchboard/api";
import { Card, cx, WideTable } from "@benchboard/ui";

type View = RouterOutputs["comparison"]["view"];

/** The target, instance config and scenario fields that differ between the runs. */
export function ConfigDifferences({ runs, diff }: { runs: View["runs"]; diff: View["configDiff"] }) {
  return (
    <Card title="Configuration differences">
      {diff.length === 0 ? (
        <p className="text-sm text-slate-500">The runs share their target, instance config and scenario.</p>
      ) : (
        <WideTable>
          <table className="w-full text-sm" aria-label="Configuration differences">
            <thead className="text-left text-xs uppercase text-slate-500">
              <tr>
                <th className="py-1.5 pr-4">Field</th>
                {runs.map((run) => (
                  <th key={run.id} className="py-1.5 pr-4 text-right">
                    {run.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {diff.map((d) => (
                <tr key={d.path} className="border-t border-slate-100">
                  <th scope="row" className="py-1 pr-4 text-left font-mono text-xs font-normal text-slate-700">
                    {d.path}
                  </th>
                  {d.values.map((v, i) => (
                    <td
                      key={runs[i]!.id}
                      className={cx(
                        "py-1 pr-4 text-right font-mono text-xs",
                        v !== d.values[0] && "font-semibold text-slate-900",
                      )}
                    >
                      {v ?? "—"}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </WideTable>
      )}
    </Card>
  );
}
