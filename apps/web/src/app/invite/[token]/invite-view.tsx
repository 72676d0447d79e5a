"use client";

import { Button, ErrorState, Skeleton } from "@benchboard/ui";
import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { AuthCard } from "~/app/_components/auth/auth-card";
import { openOrganization } from "~/lib/org-cookie";
import { useTRPC } from "~/trpc/client";
import { errorMessage } from "~/trpc/errors";

export function InviteView({ token }: { token: string }) {
  const trpc = useTRPC();
  const invitation = useQuery({ ...trpc.auth.invitation.queryOptions({ token }), retry: false });
  const me = useQuery(trpc.auth.me.queryOptions());
  const accept = useMutation(
    trpc.auth.acceptInvitation.mutationOptions({
      // Land in the organization just joined, not whichever one was open before.
      onSuccess: ({ orgSlug }) => {
        openOrganization(orgSlug);
        window.location.assign("/");
      },
    }),
  );
  const here = `/invite/${token}`;
  return (
    <AuthCard title="Join an organization">
      {invitation.isPending || me.isPending ? (
        <Skeleton className="h-16" label="Loading invitation" />
      ) : invitation.isError ? (
        <ErrorState title="Invitation not available" message={errorMessage(invitation.error)} />
      ) : (
        <div className="space-y-4 text-sm text-slate-700">
          <p>
            You are invited to <strong>{invitation.data.orgName}</strong> as <strong>{invitation.data.role}</strong> (
            {invitation.data.email}).
          </p>
          {me.data ? (
            <>
              {accept.isError && (
                <p role="alert" className="text-rose-700">
                  {errorMessage(accept.error)}
                </p>
              )}
              <Button className="w-full" onClick={() => accept.mutate({ token })} disabled={accept.isPending}>
                Accept invitation
              </Button>
            </>
          ) : (
            <div className="flex gap-2">
              <Link
                className="flex-1 rounded-md bg-sky-600 px-3 py-1.5 text-center font-medium text-white"
                href={`/sign-up?next=${encodeURIComponent(here)}&email=${encodeURIComponent(invitation.data.email)}&invitation=${encodeURIComponent(token)}`}
              >
                Create account
              </Link>
              <Link
                className="flex-1 rounded-md border border-slate-300 px-3 py-1.5 text-center font-medium"
                href={`/sign-in?next=${encodeURIComponent(here)}`}
              >
                Sign in
              </Link>
            </div>
          )}
        </div>
      )}
    </AuthCard>
  );
}
