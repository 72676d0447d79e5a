"use client";

import { Button, Card, ErrorState, Field, inputClass, Skeleton } from "@benchboard/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useTRPC } from "~/trpc/client";
import { errorMessage, fieldErrors } from "~/trpc/errors";
import { RetentionSummary } from "./retention-summary";

export const CAP_FIELDS = [
  ["maxRate", "Rate (req/s)"],
  ["maxConnections", "Connections"],
  ["maxDurationS", "Duration (s)"],
  ["maxConcurrentRuns", "Runs at a time"],
  ["maxWorkerSlots", "Worker slots"],
] as const;
export type CapKey = (typeof CAP_FIELDS)[number][0];

function entries(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * Install-wide settings, shown only to the operator (owners of the install's own organization):
 * which private ranges and hosts may be targets, whether sign-up is open, and the caps new
 * organizations start with. The environment gives the defaults; saving here overrides them.
 */
export function OperatorSettings() {
  const trpc = useTRPC();
  const role = useQuery(trpc.install.role.queryOptions());
  if (!role.data?.operator) return null;
  return <OperatorForm />;
}

function OperatorForm() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const settings = useQuery(trpc.install.get.queryOptions());
  const [allowed, setAllowed] = useState("");
  const [forTenants, setForTenants] = useState("");
  const [signupOpen, setSignupOpen] = useState(true);
  const [caps, setCaps] = useState<Record<CapKey, string>>({
    maxRate: "",
    maxConnections: "",
    maxDurationS: "",
    maxConcurrentRuns: "",
    maxWorkerSlots: "",
  });
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (!settings.data) return;
    setAllowed(settings.data.allowedTargets.join("\n"));
    setForTenants(settings.data.tenantTargets.join("\n"));
    setSignupOpen(settings.data.signupOpen);
    setCaps(
      Object.fromEntries(CAP_FIELDS.map(([k]) => [k, String(settings.data.defaultCaps[k])])) as Record<CapKey, string>,
    );
  }, [settings.data]);
  const update = useMutation(
    trpc.install.update.mutationOptions({
      onSuccess: () => {
        setSaved(true);
        return qc.invalidateQueries({ queryKey: trpc.install.pathKey() });
      },
    }),
  );
  const errors = fieldErrors(update.error);
  if (settings.isPending) return <Skeleton className="h-40" label="Loading install settings" />;
  if (settings.isError) return <ErrorState message={errorMessage(settings.error)} onRetry={() => settings.refetch()} />;
  return (
    <Card title="Install (operator)">
      <form
        aria-label="Install settings"
        className="space-y-4"
        onSubmit={(e) => {
          e.preventDefault();
          setSaved(false);
          update.mutate({
            allowedTargets: entries(allowed),
            tenantTargets: entries(forTenants),
            signupOpen,
            defaultCaps: Object.fromEntries(
              CAP_FIELDS.filter(([k]) => caps[k] !== "").map(([k]) => [k, Number(caps[k])]),
            ),
          });
        }}
      >
        <Field
          label="Allowed private targets"
          htmlFor="allowed-targets"
          error={Object.entries(errors).find(([k]) => k.startsWith("allowedTargets"))?.[1]}
          hint="For this install's own organization. One per line: CIDR ranges (10.0.0.0/8), addresses (127.0.0.1) or host:port (db.internal:5432). Loopback and private addresses are refused unless listed; metadata and link-local addresses are refused always."
        >
          <textarea
            id="allowed-targets"
            className={`${inputClass} h-24 font-mono`}
            value={allowed}
            onChange={(e) => setAllowed(e.target.value)}
          />
        </Field>
        <Field
          label="Tenants may target"
          htmlFor="tenant-targets"
          error={Object.entries(errors).find(([k]) => k.startsWith("tenantTargets"))?.[1]}
          hint="Private entries every other organization may reach too (empty by default). List only services meant for tenants: anything here can receive their load once they verify it. A tenant's own host name never reaches a private address unless an entry names that host."
        >
          <textarea
            id="tenant-targets"
            className={`${inputClass} h-16 font-mono`}
            value={forTenants}
            onChange={(e) => setForTenants(e.target.value)}
          />
        </Field>
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" checked={signupOpen} onChange={(e) => setSignupOpen(e.target.checked)} />
          Anyone may sign up (otherwise only invited people)
        </label>
        <fieldset>
          <legend className="mb-2 text-sm font-medium">Caps for new organizations</legend>
          <div className="grid grid-cols-2 gap-3">
            {CAP_FIELDS.map(([key, label]) => (
              <Field key={key} label={label} htmlFor={`cap-${key}`} error={errors[`defaultCaps.${key}`]}>
                <input
                  id={`cap-${key}`}
                  inputMode="numeric"
                  className={inputClass}
                  value={caps[key]}
                  onChange={(e) => setCaps({ ...caps, [key]: e.target.value })}
                />
              </Field>
            ))}
          </div>
        </fieldset>
        <div className="flex items-center gap-3">
          <Button type="submit" disabled={update.isPending}>
            Save install settings
          </Button>
          {saved && !update.isError && (
            <span role="status" className="text-sm text-emerald-700">
              Saved
            </span>
          )}
        </div>
        {update.isError && (
          <p role="alert" className="text-sm text-rose-700">
            {errorMessage(update.error)}
          </p>
        )}
      </form>
      <RetentionSummary />
    </Card>
  );
}
