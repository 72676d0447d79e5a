"use client";

import { type CapViolation, describeInstanceSize, type PeakLoad, type TOrgCaps } from "@benchboard/core";
import { Card, ErrorState, Skeleton } from "@benchboard/ui";
import type { ReactNode } from "react";
import { formatSeconds, n } from "./launch-spec";

interface Caps {
  isPending: boolean;
  isError: boolean;
  error: unknown;
  refetch: () => unknown;
  data?: { caps: TOrgCaps; activeRuns: number };
}

/** Beside the form: the load this launch would send, and the organization's caps it is held to. */
export function LaunchEstimate({
  load,
  peak,
  isChat,
  repCount,
  shardCount,
  shardPlan,
  config,
  caps,
  violations,
  errorMessage,
}: {
  load: { requests: number | null; durationS: number | null } | null;
  peak: PeakLoad | null;
  isChat: boolean;
  repCount: number;
  shardCount: number;
  shardPlan: { each: string } | { error: string } | null;
  config:
    | {
        name: string;
        instanceType: string | null;
        vcpu: number | null;
        memoryMb: number | null;
        cpuLimit: number | null;
      }
    | undefined;
  caps: Caps;
  violations: readonly CapViolation[];
  errorMessage: (err: unknown) => string;
}) {
  return (
    <div className="space-y-6">
      <Card title="Estimated load">
        {load && peak ? (
          <dl className="space-y-1.5 text-sm" aria-label="Estimated load">
            <Row label={isChat ? "Messages" : "Requests"}>
              {load.requests !== null ? n(load.requests * repCount) : "until the duration ends"}
              {repCount > 1 && load.requests !== null && (
                <span className="text-slate-500">
                  {" "}
                  ({n(load.requests)} × {repCount})
                </span>
              )}
            </Row>
            <Row label="Duration">
              {load.durationS !== null
                ? `${formatSeconds(load.durationS * repCount)}${repCount > 1 ? " in total" : ""}`
                : "until the requests are done"}
            </Row>
            <Row label="Peak rate">{peak.rate !== null ? `${n(peak.rate)} req/s` : "as fast as it answers"}</Row>
            <Row label="Connections">{n(peak.connections)}</Row>
            {shardCount > 1 && shardPlan && "each" in shardPlan && (
              <Row label="Per shard">
                {shardPlan.each} × {shardCount}
              </Row>
            )}
            {config && (
              <Row label="Runs on">
                {[config.instanceType, describeInstanceSize(config)].filter(Boolean).join(" · ") || config.name}
              </Row>
            )}
          </dl>
        ) : (
          <p className="text-sm text-slate-500">The scenario's spec is not valid; edit it first.</p>
        )}
      </Card>
      <Card title="Organization caps">
        {caps.isPending ? (
          <Skeleton className="h-20" label="Loading caps" />
        ) : caps.isError ? (
          <ErrorState message={errorMessage(caps.error)} onRetry={() => caps.refetch()} />
        ) : (
          <dl className="space-y-1.5 text-sm" aria-label="Organization caps">
            <Row label="Max rate" bad={violations.some((v) => v.cap === "maxRate")}>
              {n(caps.data!.caps.maxRate)} req/s
            </Row>
            <Row label="Max connections" bad={violations.some((v) => v.cap === "maxConnections")}>
              {n(caps.data!.caps.maxConnections)}
            </Row>
            <Row label="Max duration" bad={violations.some((v) => v.cap === "maxDurationS")}>
              {formatSeconds(caps.data!.caps.maxDurationS)}
            </Row>
            <Row label="Concurrent runs" bad={caps.data!.activeRuns >= caps.data!.caps.maxConcurrentRuns}>
              {caps.data!.activeRuns} active of {caps.data!.caps.maxConcurrentRuns}
            </Row>
          </dl>
        )}
      </Card>
    </div>
  );
}

function Row({ label, bad, children }: { label: string; bad?: boolean; children: ReactNode }) {
  return (
    <div className="flex justify-between gap-4">
      <dt className="text-slate-600">{label}</dt>
      <dd className={`text-right font-medium tabular-nums ${bad ? "text-rose-700" : "text-slate-900"}`}>
        {children}
        {bad && <span className="sr-only"> (exceeded)</span>}
      </dd>
    </div>
  );
}
