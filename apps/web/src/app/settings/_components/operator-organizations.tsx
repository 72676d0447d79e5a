"use client";

import type { RouterOutputs } from "@benchboard/api";
import { Button, Card, EmptyState, ErrorState, Field, inputClass, Skeleton, WideTable } from "@benchboard/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Fragment, useState } from "react";
import { LocalTime } from "~/app/_components/local-time";
import { useTRPC } from "~/trpc/client";
import { errorMessage, fieldErrors } from "~/trpc/errors";
import { CAP_FIELDS, type CapKey } from "./operator-settings";

type Organization = RouterOutputs["install"]["organizations"][number];
const n = (v: number) => v.toLocaleString("en-US");

/**
 * Every organization of the install, for the operator: who is in it, how much it ran, and the caps
 * its load runs within, each organization's editable in place. Others never see this card, and
 * the procedures behind it refuse them.
 */
export function OperatorOrganizations() {
  const trpc = useTRPC();
  const role = useQuery(trpc.install.role.queryOptions());
  if (!role.data?.operator) return null;
  return <OrganizationsTable />;
}

function OrganizationsTable() {
  const trpc = useTRPC();
  const orgs = useQuery(trpc.install.organizations.queryOptions());
  const [editing, setEditing] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  return (
    <Card title="Organizations (operator)">
      <p className="mb-3 text-sm text-slate-600">
        Every organization on this install and the caps its launches are checked against. A change applies to its next
        launch; runs already queued keep the caps they were checked against.
      </p>
      {saved && (
        <p role="status" className="mb-2 text-sm text-emerald-700">
          Saved the caps of {saved}
        </p>
      )}
      {orgs.isPending ? (
        <Skeleton className="h-24" label="Loading organizations" />
      ) : orgs.isError ? (
        <ErrorState message={errorMessage(orgs.error)} onRetry={() => orgs.refetch()} />
      ) : orgs.data.length === 0 ? (
        <EmptyState title="No organizations">Organizations appear here as people sign up.</EmptyState>
      ) : (
        <WideTable>
          <table className="w-full text-sm" aria-label="Organizations">
            <thead className="text-left text-xs uppercase text-slate-500">
              <tr>
                <th className="py-1 pr-3">Organization</th>
                <th className="px-2 text-right">Members</th>
                <th className="px-2 text-right">Runs</th>
                <th className="px-2">Created</th>
                <th className="px-2 text-right">Rate</th>
                <th className="px-2 text-right">Connections</th>
                <th className="px-2 text-right">Duration</th>
                <th className="px-2 text-right">Runs at a time</th>
                <th className="px-2 text-right">Worker slots</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {orgs.data.map((o) => (
                <Fragment key={o.id}>
                  <tr className="border-t border-slate-100">
                    <td className="py-1.5 pr-3">
                      <div className="font-medium">{o.name}</div>
                      <div className="text-xs text-slate-500">
                        {o.slug}
                        {o.installOrganization && " · this install's own"}
                        {o.demo && " · demo data"}
                      </div>
                    </td>
                    <td className="px-2 text-right tabular-nums">{n(o.members)}</td>
                    <td className="px-2 text-right tabular-nums">{n(o.runs)}</td>
                    <td className="px-2 text-xs">
                      <LocalTime value={o.createdAt} date />
                    </td>
                    <td className="px-2 text-right tabular-nums">{n(o.caps.maxRate)} req/s</td>
                    <td className="px-2 text-right tabular-nums">{n(o.caps.maxConnections)}</td>
                    <td className="px-2 text-right tabular-nums">{n(o.caps.maxDurationS)} s</td>
                    <td className="px-2 text-right tabular-nums">{n(o.caps.maxConcurrentRuns)}</td>
                    <td className="px-2 text-right tabular-nums">{n(o.caps.maxWorkerSlots)}</td>
                    <td className="pl-2 text-right">
                      {editing !== o.id && (
                        <button
                          type="button"
                          className="whitespace-nowrap text-xs font-medium text-sky-700 hover:underline"
                          aria-label={`Edit the caps of ${o.name}`}
                          onClick={() => {
                            setSaved(null);
                            setEditing(o.id);
                          }}
                        >
                          Edit caps
                        </button>
                      )}
                    </td>
                  </tr>
                  {editing === o.id && (
                    <tr>
                      <td colSpan={10} className="pb-3">
                        <CapsForm
                          org={o}
                          onDone={(savedName) => {
                            setEditing(null);
                            setSaved(savedName);
                          }}
                        />
                      </td>
                    </tr>
                  )}
                </Fragment>
              ))}
            </tbody>
          </table>
        </WideTable>
      )}
    </Card>
  );
}

function CapsForm({ org, onDone }: { org: Organization; onDone: (savedName: string | null) => void }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [caps, setCaps] = useState<Record<CapKey, string>>(
    Object.fromEntries(CAP_FIELDS.map(([k]) => [k, String(org.caps[k])])) as Record<CapKey, string>,
  );
  const update = useMutation(
    trpc.install.updateOrgCaps.mutationOptions({
      onSuccess: async (r) => {
        await qc.invalidateQueries({ queryKey: trpc.install.organizations.queryKey() });
        onDone(r.name);
      },
    }),
  );
  const errors = fieldErrors(update.error);
  return (
    <form
      aria-label={`Caps of ${org.name}`}
      className="rounded-md border border-slate-200 bg-slate-50 p-3"
      onSubmit={(e) => {
        e.preventDefault();
        update.mutate({
          orgId: org.id,
          // A field left empty keeps its cap; anything else is the operator's number, checked by the server.
          caps: Object.fromEntries(
            CAP_FIELDS.filter(([k]) => caps[k].trim() !== "").map(([k]) => [k, Number(caps[k])]),
          ),
        });
      }}
    >
      <div className="grid grid-cols-2 gap-3 md:grid-cols-5">
        {CAP_FIELDS.map(([key, label]) => (
          <Field key={key} label={label} htmlFor={`org-cap-${org.id}-${key}`} error={errors[`caps.${key}`]}>
            <input
              id={`org-cap-${org.id}-${key}`}
              inputMode="decimal"
              className={inputClass}
              value={caps[key]}
              onChange={(e) => setCaps({ ...caps, [key]: e.target.value })}
              aria-invalid={!!errors[`caps.${key}`]}
            />
          </Field>
        ))}
      </div>
      {update.isError && !CAP_FIELDS.some(([k]) => errors[`caps.${k}`]) && (
        <p role="alert" className="mt-2 text-sm text-rose-700">
          {errorMessage(update.error)}
        </p>
      )}
      <div className="mt-3 flex gap-2">
        <Button type="submit" disabled={update.isPending}>
          {update.isPending ? "Saving…" : `Save caps of ${org.name}`}
        </Button>
        <Button variant="secondary" onClick={() => onDone(null)} disabled={update.isPending}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
