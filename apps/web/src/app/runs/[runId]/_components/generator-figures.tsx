import { formatDurationMs, formatMetric } from "@benchboard/core";

const ROWS: { key: string; label: string; hint: string }[] = [
  { key: "send_lag_p50", label: "Send lag p50", hint: "due time → sent, the generator's own lateness" },
  { key: "send_lag_p99", label: "Send lag p99", hint: "" },
  { key: "send_lag_max", label: "Send lag max", hint: "" },
  {
    key: "stall_dropped",
    label: "Dropped after stalls",
    hint: "requests due while the generator was frozen or starved, dropped rather than sent in a burst",
  },
  { key: "connection_wait_p99", label: "Wait for a connection p99", hint: "every connection busy: the target's doing" },
  {
    key: "latency_from_send_p50",
    label: "Latency from the send p50",
    hint: "fired → answered, as oha and vegeta time it; the run's latency counts from the due time",
  },
  { key: "latency_from_send_p99", label: "Latency from the send p99", hint: "" },
  { key: "event_loop_delay_p99", label: "Event-loop delay p99", hint: "how late the generator's own timers ran" },
  { key: "event_loop_delay_max", label: "Event-loop delay max", hint: "" },
  { key: "gc_pause_max", label: "GC pause max", hint: "the runtime's garbage collector held every send and response" },
  { key: "gc_pause_share", label: "Time in GC pauses", hint: "" },
  { key: "generator_cpu", label: "Generator CPU", hint: "of the process sending the load, in cores" },
];

/**
 * The load generator's own error, shown beside the target's figures: what part of a latency
 * could be the generator's (send lag) rather than the target's. An open-model run is invalid
 * when its send lag is material against the latency it measured.
 */
export function GeneratorFigures({
  metrics,
  scheduling = null,
  helperThreads = null,
  loopSlice = null,
  pacingThread = null,
  stalls = [],
}: {
  metrics: Readonly<Record<string, number>>;
  /** Set when the worker asked for real-time scheduling (`BENCHBOARD_ENGINE_REALTIME`). */
  scheduling?: { realtime: boolean; note: string | null } | null;
  /** Set on runs stored when workers could put their other threads at idle priority (a setting since removed). */
  helperThreads?: { idle: boolean; note: string | null } | null;
  /** Set on runs stored when workers could give the timing threads the shortest slice (a setting since removed). */
  loopSlice?: { short: boolean; note: string | null } | null;
  /** Set when the worker put the run's pacing thread at SCHED_BATCH (the same setting). */
  pacingThread?: { batch: boolean; note: string | null } | null;
  /** When the generator stalled (s into the run), for how long, and what each stall dropped. */
  stalls?: readonly { atS: number; gapMs: number; dropped: number; confirmMs: number; shard: number | null }[];
}) {
  const rows = ROWS.filter((r) => metrics[r.key] !== undefined);
  if (rows.length === 0) return null;
  const p50 = metrics.latency_p50;
  const lag50 = metrics.send_lag_p50;
  const share = p50 !== undefined && lag50 !== undefined && p50 > 0 ? lag50 / p50 : null;
  return (
    <div>
      <table className="w-full text-sm" aria-label="Load generator figures">
        <tbody>
          {rows.map((r) => (
            <tr key={r.key} className="border-t border-slate-100 first:border-0">
              <th scope="row" className="py-1.5 text-left font-normal text-slate-600">
                {r.label}
                {r.hint && <span className="ml-1.5 text-xs text-slate-400">{r.hint}</span>}
              </th>
              <td className="py-1.5 text-right font-medium tabular-nums">{formatMetric(r.key, metrics[r.key])}</td>
            </tr>
          ))}
          {scheduling && (
            <ChoiceRow
              label="Scheduling"
              got={scheduling.realtime}
              // A real-time run's row says what it had, whatever note came with it.
              note={scheduling.realtime ? null : scheduling.note}
              gotHint="event loop and pacing thread at real-time priority"
              askedHint="real-time was asked for"
              values={["real-time", "normal"]}
            />
          )}
          {helperThreads && (
            <ChoiceRow
              label="Helper threads"
              got={helperThreads.idle}
              note={helperThreads.note}
              gotHint="collector, compiler and I/O pool give the core up to the engine"
              askedHint="idle priority was asked for"
              values={["idle priority", "normal"]}
            />
          )}
          {loopSlice && (
            <ChoiceRow
              label="Scheduler slice"
              got={loopSlice.short}
              note={loopSlice.note}
              gotHint="event loop and pacing thread win their wake-ups"
              askedHint="the shortest slice was asked for"
              values={["0.1 ms", "kernel default"]}
            />
          )}
          {pacingThread && (
            <ChoiceRow
              label="Pacing thread"
              got={pacingThread.batch}
              note={pacingThread.note}
              gotHint="wakes without preempting the event loop"
              askedHint="batch scheduling was asked for"
              values={["batch", "normal"]}
            />
          )}
        </tbody>
      </table>
      {stalls.length > 0 && (
        <div className="mt-2 text-xs text-slate-600">
          <p>
            The generator stalled: the requests due meanwhile were dropped, not sent late in a burst (requests in flight
            then waited for the generator, not for the target); more than 1 % of the schedule dropped makes the run
            invalid.
          </p>
          <ul className="mt-1 space-y-0.5 tabular-nums" aria-label="Generator stalls">
            {stalls.map((s) => (
              <li key={`${s.shard}-${s.atS}-${s.gapMs}`}>
                {s.shard !== null && `shard ${s.shard + 1}, `}at {s.atS.toFixed(1)} s: stalled{" "}
                {formatDurationMs(s.gapMs)}, {s.dropped.toLocaleString("en-US")} dropped
                {s.confirmMs > 0 && `; the run was confirmed still running in ${formatDurationMs(s.confirmMs)}`}
              </li>
            ))}
          </ul>
        </div>
      )}
      {share !== null && (
        <p className="mt-2 text-xs text-slate-500">
          Send lag p50 is {(share * 100).toFixed(share < 0.01 ? 2 : 1)}% of latency p50. Latency is measured from each
          request&apos;s due time, so any lateness counts; the run is marked invalid when the generator&apos;s share is
          material (above 10% of p50 or 25% of p99, with floors of 0.05 ms and 0.5 ms).
        </p>
      )}
    </div>
  );
}

/**
 * A scheduling choice the worker made for the run: what the run got (`values`: got, else), and
 * why — the stored note, else what getting it means or that it was asked for.
 */
function ChoiceRow({
  label,
  got,
  note,
  gotHint,
  askedHint,
  values,
}: {
  label: string;
  got: boolean;
  note: string | null;
  gotHint: string;
  askedHint: string;
  values: [string, string];
}) {
  const hint = note ?? (got ? gotHint : askedHint);
  const value = got ? values[0] : values[1];
  return (
    <tr className="border-t border-slate-100">
      <th scope="row" className="py-1.5 text-left font-normal text-slate-600">
        {label}
        <span className="ml-1.5 text-xs text-slate-400">{hint}</span>
      </th>
      <td className="py-1.5 text-right font-medium">{value}</td>
    </tr>
  );
}
