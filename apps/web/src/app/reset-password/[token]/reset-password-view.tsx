"use client";

import { Button, ErrorState, Field, inputClass, Skeleton } from "@benchboard/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { AuthCard } from "~/app/_components/auth/auth-card";
import { useTRPC } from "~/trpc/client";
import { errorMessage, fieldErrors } from "~/trpc/errors";

/**
 * The page behind a reset link: says at once when the link no longer works (used, replaced by a
 * newer one, expired), else sets the new password, which signs every other session out and this
 * browser in.
 */
export function ResetPasswordView({ token }: { token: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const check = useQuery({ ...trpc.auth.passwordReset.queryOptions({ token }), retry: false });
  const [password, setPassword] = useState("");
  const [repeat, setRepeat] = useState("");
  const [mismatch, setMismatch] = useState(false);
  const reset = useMutation(
    trpc.auth.resetPassword.mutationOptions({
      onSuccess: () => {
        // Everything cached so far was read signed out.
        queryClient.clear();
        router.refresh();
        router.replace("/");
      },
    }),
  );
  const errors = fieldErrors(reset.error);
  const again = (
    <Link className="font-medium text-sky-700 hover:underline" href="/forgot-password">
      Ask for a new link
    </Link>
  );
  return (
    <AuthCard title="Choose a new password" footer={again}>
      {check.isPending ? (
        <Skeleton className="h-24" label="Checking the reset link" />
      ) : check.isError ? (
        <ErrorState title="This link cannot be used" message={errorMessage(check.error)} />
      ) : (
        <form
          className="space-y-4"
          aria-label="Choose a new password"
          onSubmit={(e) => {
            e.preventDefault();
            if (password !== repeat) {
              // The server's earlier answer was about another password: only the mismatch stands.
              reset.reset();
              setMismatch(true);
              return;
            }
            setMismatch(false);
            reset.mutate({ token, password });
          }}
        >
          <p className="text-sm text-slate-600">Setting it signs you out everywhere else and signs you in here.</p>
          <Field label="New password" htmlFor="reset-password" error={errors.password} hint="At least 10 characters">
            <input
              id="reset-password"
              type="password"
              className={inputClass}
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              autoComplete="new-password"
              aria-invalid={!!errors.password}
              required
            />
          </Field>
          <Field
            label="Repeat the new password"
            htmlFor="reset-password-repeat"
            error={mismatch ? "the two passwords differ" : undefined}
          >
            <input
              id="reset-password-repeat"
              type="password"
              className={inputClass}
              value={repeat}
              onChange={(e) => setRepeat(e.target.value)}
              autoComplete="new-password"
              aria-invalid={mismatch}
              required
            />
          </Field>
          {reset.isError && !errors.password && (
            <p role="alert" className="text-sm text-rose-700">
              {errorMessage(reset.error)}
            </p>
          )}
          <Button type="submit" className="w-full" disabled={reset.isPending}>
            {reset.isPending ? "Saving…" : "Set new password"}
          </Button>
        </form>
      )}
    </AuthCard>
  );
}
