import type { RouterOutputs } from "@benchboard/api";
import { LocalTime } from "~/app/_components/local-time";

type Attempt = RouterOutputs["notification"]["deliveries"][number]["attemptLog"][number];

const OUTCOME_LABEL: Record<string, string> = { delivered: "delivered", retry: "failed, retried", failed: "failed" };
const OUTCOME_STYLE: Record<string, string> = {
  delivered: "text-emerald-700",
  retry: "text-amber-700",
  failed: "text-rose-700",
};

/**
 * Every attempt of one delivery, first to last: when, how it ended, the HTTP status (the class
 * for a tenant), how long it took and why it failed — never what the receiver answered.
 */
export function DeliveryAttempts({ count, attempts }: { count: number; attempts: Attempt[] }) {
  if (attempts.length === 0) return <>{count}</>;
  return (
    <details>
      <summary className="cursor-pointer">{count}</summary>
      <ol className="mt-1 space-y-1 text-left" aria-label="Attempts">
        {attempts.map((a) => (
          <li key={`${a.attempt}-${new Date(a.at).getTime()}`} className="whitespace-nowrap">
            <span className="text-slate-500">#{a.attempt}</span> <LocalTime value={a.at} time />{" "}
            <span className={`font-medium ${OUTCOME_STYLE[a.outcome] ?? ""}`}>
              {OUTCOME_LABEL[a.outcome] ?? a.outcome}
            </span>{" "}
            <span className="font-mono">{a.status ?? a.statusClass ?? "—"}</span>{" "}
            <span className="text-slate-500">{a.durationMs} ms</span>
            {a.error && <span className="block whitespace-normal text-slate-500">{a.error}</span>}
          </li>
        ))}
      </ol>
    </details>
  );
}
