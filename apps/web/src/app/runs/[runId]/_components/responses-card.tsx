"use client";

import type { RouterOutputs } from "@benchboard/api";
import { Card, cx } from "@benchboard/ui";

type Result = NonNullable<RouterOutputs["run"]["view"]["result"]>;

/** Responses by status code and the other errors, with their counts. */
export function ResponsesCard({ result, failed }: { result: Result; failed: number }) {
  const statusCounts = Object.entries(result.statusCounts);
  const otherErrors = result.errors.filter((e) => e.kind !== "status");
  return (
    <Card title="Responses and errors">
      {statusCounts.length === 0 && otherErrors.length === 0 ? (
        <p className="text-sm text-slate-500">
          {failed ? `${failed} failed, without a breakdown.` : "No errors recorded."}
        </p>
      ) : (
        <table className="w-full text-sm" aria-label="Status codes">
          <thead className="text-left text-xs uppercase text-slate-500">
            <tr>
              <th className="py-1">Status or error</th>
              <th className="py-1 text-right">Count</th>
            </tr>
          </thead>
          <tbody>
            {statusCounts.map(([code, n]) => (
              <tr key={code} className="border-t border-slate-100">
                <td className={cx("py-1.5", Number(code) >= 400 && "text-rose-700")}>{code}</td>
                <td className="py-1.5 text-right tabular-nums">{n.toLocaleString("en-US")}</td>
              </tr>
            ))}
            {otherErrors.map((e) => (
              <tr key={`${e.kind}-${e.message}`} className="border-t border-slate-100 text-rose-700">
                <td className="py-1.5">
                  {e.kind}
                  {e.message && `: ${e.message}`}
                </td>
                <td className="py-1.5 text-right tabular-nums">{e.count.toLocaleString("en-US")}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Card>
  );
}
