"use client";

import type { RouterOutputs } from "@benchboard/api";
import { Card } from "@benchboard/ui";

type View = RouterOutputs["run"]["view"];

/** The instance config, the server config in effect, the shards and the scenario a run ran with. */
export function Snapshots({ view }: { view: View }) {
  const config = view.config;
  const knobs = (config?.knobs ?? {}) as Record<string, unknown>;
  const fields = Object.entries(config ?? {}).filter(([k, v]) => k !== "knobs" && v !== null && typeof v !== "object");
  return (
    <div className="grid gap-6 lg:grid-cols-2">
      <Card title="Instance config snapshot">
        {config ? (
          <KeyValues
            label="Instance config"
            rows={[...fields, ...Object.entries(knobs).map(([k, v]) => [`knobs.${k}`, v] as [string, unknown])]}
          />
        ) : (
          <p className="text-sm text-slate-500">The run had no instance config.</p>
        )}
      </Card>
      <ServerConfigCard view={view} />
      {view.shards && <ShardsCard shards={view.shards} />}
      <Card title="Scenario snapshot">
        {view.target && (
          <p className="mb-2 text-sm text-slate-600">
            Target <span className="font-medium text-slate-800">{view.target.name}</span>
            {view.target.kind && ` (${view.target.kind})`}
            {view.target.baseUrl && <span className="font-mono text-xs"> {view.target.baseUrl}</span>}
          </p>
        )}
        {view.overrides && (
          <p className="mb-2 text-sm text-slate-600">
            Launched with{" "}
            {Object.entries(view.overrides)
              .map(
                ([k, v]) =>
                  `${k === "durationS" ? "duration" : k} ${v.toLocaleString("en-US")}${k === "durationS" ? " s" : k === "rate" ? " req/s" : ""}`,
              )
              .join(", ")}{" "}
            instead of the scenario's own (the spec below is what ran).
          </p>
        )}
        <pre className="max-h-80 overflow-auto rounded bg-slate-50 p-3 text-xs text-slate-700">
          {JSON.stringify(view.scenario ?? {}, null, 2)}
        </pre>
      </Card>
    </div>
  );
}

function KeyValues({ label, rows }: { label: string; rows: [string, unknown][] }) {
  return (
    <table className="w-full text-sm" aria-label={label}>
      <tbody>
        {rows.map(([k, v]) => (
          <tr key={k} className="border-t border-slate-100 first:border-0">
            <th scope="row" className="py-1 text-left font-normal text-slate-600">
              {k}
            </th>
            <td className="py-1 text-right font-mono text-xs">
              {typeof v === "object" ? JSON.stringify(v) : String(v)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** What the target's config hook reported right before load: the config the run actually ran on. */
function ServerConfigCard({ view }: { view: View }) {
  const reported = view.serverConfig;
  const unreadable = typeof reported?.unreadable === "string" ? reported.unreadable : null;
  return (
    <Card title="Server config in effect">
      {!reported ? (
        <p className="text-sm text-slate-500">
          {view.run.source === "launched"
            ? "The target has no config hook, so the config it ran with was not recorded."
            : "Not recorded for runs that were uploaded."}
        </p>
      ) : unreadable ? (
        <p className="text-sm text-amber-800">The target's config hook could not be read: {unreadable}.</p>
      ) : (
        <>
          <p className="mb-2 text-sm text-slate-600">
            {view.config
              ? "Reported by the target's config hook right before load."
              : "The run had no instance config: the target was set to its baseline, as reported by its config hook right before load."}
          </p>
          <KeyValues label="Server config in effect" rows={Object.entries(reported)} />
        </>
      )}
    </Card>
  );
}

function ShardsCard({ shards }: { shards: NonNullable<View["shards"]> }) {
  return (
    <Card title={`Shards (${shards.count})`}>
      {shards.workerLabel && (
        <p className="mb-2 text-sm text-slate-600">
          On workers labelled <span className="font-mono text-xs">{shards.workerLabel}</span>.
        </p>
      )}
      {shards.agentLabel && (
        <p className="mb-2 text-sm text-slate-600">
          On your agents labelled <span className="font-mono text-xs">{shards.agentLabel}</span>.
        </p>
      )}
      <table className="w-full text-sm" aria-label="Shards">
        <thead>
          <tr className="text-left text-xs text-slate-500">
            <th scope="col" className="py-1 font-normal">
              Shard
            </th>
            <th scope="col" className="py-1 font-normal">
              {shards.agentLabel ? "Agent" : "Worker"}
            </th>
            <th scope="col" className="py-1 font-normal">
              Share of the load
            </th>
            <th scope="col" className="py-1 font-normal">
              Status
            </th>
          </tr>
        </thead>
        <tbody>
          {shards.items.map((s) => (
            <tr key={s.index} className="border-t border-slate-100">
              <td className="py-1">{s.index + 1}</td>
              <td className="py-1 font-mono text-xs">{s.worker ?? "not picked up"}</td>
              <td className="py-1">{s.share ?? "—"}</td>
              <td className="py-1" title={s.error ?? undefined}>
                {s.status}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Card>
  );
}
