"use client";

import { formatBytes, formatMetric, liveLagWarning, type TLiveLlm, type TLiveProgress } from "@benchboard/core";
import { Card, ProgressBar } from "@benchboard/ui";
import { formatElapsed } from "@benchboard/ui/charts/palette";
import { TimeSeriesChart } from "@benchboard/ui/charts/time-series-chart";

export function LivePanel({
  status,
  progress,
  connected,
  opened,
  waitingFor = null,
}: {
  status: string;
  progress: TLiveProgress | null;
  connected: boolean;
  /** False until the event stream has first been open: the page is connecting, not reconnecting. */
  opened: boolean;
  /** A queued agent run: what it waits for ("waiting for an agent labelled lab (none online since …)"). */
  waitingFor?: { message: string } | null;
}) {
  const queued = status === "queued";
  const samples = progress?.samples ?? [];
  const t0 = samples[0]?.t ?? 0;
  // Errors arrive as a running total; the chart shows them per second.
  const points = samples.map((s, i) => ({
    t: (s.t - t0) / 1000,
    rps: s.rps,
    p50: s.p50,
    p99: s.p99,
    errors: i === 0 ? 0 : Math.max(0, s.errors - (samples[i - 1]?.errors ?? 0)),
    mem: s.mem,
    queue: s.queue,
    lag: s.lag ?? null,
    ttft50: s.ttft50 ?? null,
    ttft99: s.ttft99 ?? null,
    itl50: s.itl50 ?? null,
    itl99: s.itl99 ?? null,
  }));
  const hasLag = points.some((p) => p.lag !== null);
  const hasTtft = points.some((p) => p.ttft50 !== null || p.ttft99 !== null);
  const hasItl = points.some((p) => p.itl50 !== null || p.itl99 !== null);
  const hasMem = points.some((p) => p.mem !== null);
  const hasQueue = points.some((p) => p.queue !== null);
  const fraction = progress?.fraction ?? null;
  const remainingMs =
    progress && fraction !== null && fraction > 0.02 ? (progress.elapsedMs * (1 - fraction)) / fraction : null;
  const mem = progress?.monitors?.mem_bytes ?? null;
  const queue = progress?.monitors?.queue_depth ?? progress?.monitors?.["gauge.queue_depth"] ?? null;
  const lagging = progress ? liveLagWarning(progress) : null;

  return (
    <Card
      title={queued ? (waitingFor ? capitalize(waitingFor.message) : "Waiting for a worker") : "Running"}
      actions={
        <span className={`text-xs ${connected ? "text-emerald-700" : "text-slate-500"}`} aria-live="polite">
          {connected ? "● live" : opened ? "○ reconnecting…" : "○ connecting…"}
        </span>
      }
    >
      <ProgressBar
        label={queued ? "Queued" : "Progress"}
        value={queued ? 0 : fraction}
        unknown={progress ? "duration unknown: the tool reports no end" : "waiting for the first figures"}
      />
      {lagging && (
        <div
          role="alert"
          data-live-warning="generator-lag"
          className="mt-4 rounded-lg border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900"
        >
          <span className="font-semibold">Turning invalid: </span>
          the load generator is sending late — send lag p99 {formatMetric("send_lag_p99", lagging.lagP99Ms)} against
          latency p99 {formatMetric("latency_p99", lagging.latencyP99Ms)} (the line is{" "}
          {formatMetric("send_lag_p99", lagging.boundMs)}). If it stays there, the run ends as not a valid measurement:
          its latency is partly the generator&apos;s. Lower the rate or split the load over more shards.
        </div>
      )}
      {progress && (
        <dl className="mt-4 grid grid-cols-2 gap-4 text-sm sm:grid-cols-4 xl:grid-cols-8" aria-label="Live figures">
          <Live label="Elapsed" value={formatElapsed(progress.elapsedMs / 1000)} />
          <Live label="Remaining" value={remainingMs === null ? "—" : formatElapsed(remainingMs / 1000)} />
          <Live label="Requests" value={progress.requests.toLocaleString("en-US")} />
          <Live label="Achieved rate" value={`${progress.rps.toFixed(1)} req/s`} />
          <Live label="p50 so far" value={formatMetric("latency_p50", progress.latencyP50Ms)} />
          <Live label="p99 so far" value={formatMetric("latency_p99", progress.latencyP99Ms)} />
          {progress.sendLagP99Ms !== undefined && (
            <Live label="Send lag p99" value={formatMetric("send_lag_p99", progress.sendLagP99Ms)} />
          )}
          <Live label="Errors" value={progress.errors.toLocaleString("en-US")} />
          <Live label="Target memory" value={mem === null ? "—" : formatBytes(mem)} />
          {queue !== null && <Live label="Queue depth" value={queue.toLocaleString("en-US")} />}
        </dl>
      )}
      {progress?.llm && <LiveLlm llm={progress.llm} />}
      {points.length > 1 && (
        <section className="mt-6 grid gap-6 lg:grid-cols-2" aria-label="Live charts">
          <TimeSeriesChart
            title="Achieved rate"
            syncId="live"
            data={points}
            lines={[{ key: "rps", label: "req/s" }]}
            format={(v) => `${Math.round(v)}`}
          />
          <TimeSeriesChart
            title="Latency per second (p50 / p99)"
            syncId="live"
            data={points}
            lines={[
              { key: "p50", label: "p50" },
              { key: "p99", label: "p99" },
            ]}
            format={(v) => formatMetric("latency_p50", v)}
          />
          <TimeSeriesChart
            title="Errors per second"
            syncId="live"
            data={points}
            lines={[{ key: "errors", label: "errors" }]}
            format={(v) => `${v}`}
          />
          {hasTtft && (
            <TimeSeriesChart
              title="Time to first token per second (p50 / p99)"
              syncId="live"
              data={points}
              lines={[
                { key: "ttft50", label: "p50" },
                { key: "ttft99", label: "p99" },
              ]}
              format={(v) => formatMetric("ttft_p50", v)}
            />
          )}
          {hasItl && (
            <TimeSeriesChart
              title="Inter-token latency per second (p50 / p99)"
              syncId="live"
              data={points}
              lines={[
                { key: "itl50", label: "p50" },
                { key: "itl99", label: "p99" },
              ]}
              format={(v) => formatMetric("itl_p50", v)}
            />
          )}
          {hasLag && (
            <TimeSeriesChart
              title="Generator send lag p99 (so far)"
              syncId="live"
              data={points}
              lines={[{ key: "lag", label: "send lag p99" }]}
              format={(v) => formatMetric("send_lag_p99", v)}
            />
          )}
          {hasMem && (
            <TimeSeriesChart
              title="Target memory"
              syncId="live"
              data={points}
              lines={[{ key: "mem", label: "RSS" }]}
              format={formatBytes}
              binary
            />
          )}
          {hasQueue && (
            <TimeSeriesChart
              title="Queue depth"
              syncId="live"
              data={points}
              lines={[{ key: "queue", label: "depth" }]}
              format={(v) => `${v}`}
            />
          )}
        </section>
      )}
    </Card>
  );
}

/** An LLM run's streaming figures so far: the same measures as the report's LLM card. */
function LiveLlm({ llm }: { llm: TLiveLlm }) {
  return (
    <section className="mt-4 border-t border-slate-100 pt-3" aria-labelledby="live-llm-heading">
      <h3 id="live-llm-heading" className="text-xs font-semibold uppercase tracking-wide text-slate-600">
        LLM <span className="font-normal normal-case text-slate-500">(so far)</span>
      </h3>
      <dl className="mt-2 grid grid-cols-2 gap-4 text-sm sm:grid-cols-5" aria-label="Live LLM figures">
        <Live label="TTFT p50" value={formatMetric("ttft_p50", llm.ttftP50Ms)} />
        <Live label="TTFT p99" value={formatMetric("ttft_p99", llm.ttftP99Ms)} />
        <Live label="Inter-token p50" value={formatMetric("itl_p50", llm.itlP50Ms)} />
        <Live label="Inter-token p99" value={formatMetric("itl_p99", llm.itlP99Ms)} />
        <Live label="Output tokens/s" value={formatMetric("tokens_per_s", llm.tokensPerS)} />
      </dl>
    </section>
  );
}

function Live({ label, value }: { label: string; value: string }) {
  return (
    <div>
      <dt className="text-xs uppercase text-slate-500">{label}</dt>
      <dd className="mt-0.5 font-semibold tabular-nums">{value}</dd>
    </div>
  );
}

const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
