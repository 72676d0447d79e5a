"use client";

import { Field, inputClass } from "@benchboard/ui";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "~/trpc/client";

/** Where a launch runs: "" any install worker, `worker:<label>`, or `agent:<label>` (the organization's agents). */
export type Location = string;

export function locationLabels(location: Location): { workerLabel: string | null; agentLabel: string | null } {
  return {
    workerLabel: location.startsWith("worker:") ? location.slice("worker:".length) : null,
    agentLabel: location.startsWith("agent:") ? location.slice("agent:".length) : null,
  };
}

/** The location choice of the launch and sweep forms: install workers (any, or by label) or agents labelled L. */
export function LocationField({
  id,
  value,
  onChange,
  error,
}: {
  id: string;
  value: Location;
  onChange: (location: Location) => void;
  error?: string;
}) {
  const trpc = useTRPC();
  const labels = useQuery(trpc.worker.labels.queryOptions());
  const agentLabels = useQuery(trpc.agent.labels.queryOptions());
  const { agentLabel } = locationLabels(value);
  return (
    <Field
      label="Location"
      htmlFor={id}
      error={error}
      hint={
        labels.isError || agentLabels.isError
          ? "could not load the workers' and agents' labels"
          : agentLabel
            ? "Your agents with this label run it, inside your network (no origin verification needed)"
            : "Install workers (optionally only those with a label), or your own agents"
      }
    >
      <select
        id={id}
        className={inputClass}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={!!error}
      >
        <option value="">Install workers: any</option>
        {labels.data?.map((l) => (
          <option key={`worker:${l.label}`} value={`worker:${l.label}`}>
            Install workers labelled {l.label} ({l.workers} online)
          </option>
        ))}
        {agentLabels.data?.map((l) => (
          <option key={`agent:${l.label}`} value={`agent:${l.label}`}>
            Agents labelled {l.label} ({l.online} online)
          </option>
        ))}
      </select>
    </Field>
  );
}
