"use client";

import { Button, Card, ErrorState, Skeleton } from "@benchboard/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { LocalTime } from "~/app/_components/local-time";
import { useCanEdit } from "~/app/_components/use-can-edit";
import { useTRPC } from "~/trpc/client";
import { errorMessage } from "~/trpc/errors";

/**
 * Whether the target's origin may get load, and how to prove it is yours: publish the
 * organization's token over HTTP or as a DNS TXT record, then check. Until then only a probe of a
 * few requests may reach it.
 */
export function OriginVerification({ targetId }: { targetId: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const view = useQuery(trpc.target.verification.queryOptions({ targetId }));
  const verify = useMutation(
    trpc.target.verify.mutationOptions({
      onSuccess: () => qc.invalidateQueries({ queryKey: trpc.target.verification.pathKey() }),
    }),
  );
  const router = useRouter();
  const canEdit = useCanEdit();
  // The probe's run page shows whether the origin answered.
  const probe = useMutation(trpc.target.probe.mutationOptions({ onSuccess: (run) => router.push(`/runs/${run.id}`) }));
  if (view.isPending) return <Skeleton className="h-32" label="Loading verification" />;
  if (view.isError) return <ErrorState message={errorMessage(view.error)} onRetry={() => view.refetch()} />;
  const v = view.data;
  return (
    <Card title="Origin verification">
      <section aria-label="Origin verification" className="space-y-3 text-sm">
        <p>
          <span className="font-mono">{v.origin}</span>{" "}
          {v.trusted ? (
            <span className="rounded bg-emerald-50 px-1.5 py-0.5 text-emerald-800">
              trusted (the install&apos;s own)
            </span>
          ) : v.verified ? (
            <span className="rounded bg-emerald-50 px-1.5 py-0.5 text-emerald-800">
              verified by {v.verified.method === "dns" ? "DNS" : "HTTP"} on <LocalTime value={v.verified.at} />
            </span>
          ) : (
            <span className="rounded bg-amber-50 px-1.5 py-0.5 text-amber-900">
              not verified — only a probe of up to {v.probeMaxRequests} requests may reach it
            </span>
          )}
        </p>
        {!v.trusted && (
          <>
            <div>
              <p className="font-medium">Over HTTP</p>
              <p className="text-slate-600">
                Serve a file at <span className="font-mono break-all">{v.http.url}</span> containing this line (no
                redirects are followed):
              </p>
              <pre className="mt-1 overflow-x-auto rounded bg-slate-50 p-2 font-mono text-xs">{v.http.content}</pre>
            </div>
            {v.dns ? (
              <div>
                <p className="font-medium">Or over DNS</p>
                <p className="text-slate-600">
                  Add a TXT record at <span className="font-mono break-all">{v.dns.name}</span> with the value:
                </p>
                <pre className="mt-1 overflow-x-auto rounded bg-slate-50 p-2 font-mono text-xs">{v.dns.value}</pre>
              </div>
            ) : (
              <p className="text-slate-600" data-no-dns>
                The origin is an IP address, which has no DNS name for a TXT record: the HTTP file is the way to verify
                it.
              </p>
            )}
            <div className="flex gap-2">
              <Button
                type="button"
                disabled={verify.isPending}
                onClick={() => verify.mutate({ targetId, method: "http" })}
              >
                Check HTTP file
              </Button>
              {v.dns && (
                <Button
                  type="button"
                  variant="secondary"
                  disabled={verify.isPending}
                  onClick={() => verify.mutate({ targetId, method: "dns" })}
                >
                  Check DNS record
                </Button>
              )}
            </div>
            <p className="text-xs text-slate-500">Changing the target&apos;s origin needs a new verification.</p>
          </>
        )}
        {!v.trusted && canEdit && (
          <div className="flex flex-wrap items-center gap-3 border-t border-slate-100 pt-3">
            <Button variant="secondary" disabled={probe.isPending} onClick={() => probe.mutate({ targetId })}>
              {probe.isPending ? "Sending the probe…" : `Send a probe (${v.probeMaxRequests} requests)`}
            </Button>
            <span className="text-xs text-slate-500">
              {v.probeMaxRequests} GET requests to the origin&apos;s root, one at a time: does it answer? Allowed before
              verifying.
            </span>
          </div>
        )}
        {probe.isError && (
          <p role="alert" className="text-rose-700">
            {errorMessage(probe.error)}
          </p>
        )}
        {verify.isError && (
          <p role="alert" className="text-rose-700">
            {errorMessage(verify.error)}
          </p>
        )}
        {verify.isSuccess && (
          <p role="status" className="text-emerald-700">
            Verified.
          </p>
        )}
      </section>
    </Card>
  );
}
