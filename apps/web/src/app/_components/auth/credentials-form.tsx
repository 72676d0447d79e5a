"use client";

import { Button, Field, inputClass } from "@benchboard/ui";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { openOrganization } from "~/lib/org-cookie";
import { safeNextPath } from "~/lib/safe-next";
import { useTRPC } from "~/trpc/client";
import { errorMessage, fieldErrors } from "~/trpc/errors";

/**
 * Sign-in and sign-up share one form; on success the app moves to `next` (same origin only)
 * without reloading, so the next page shows at once with its own loading states.
 */
export function CredentialsForm({
  mode,
  next,
  email: fixedEmail,
  invitation,
  setupToken: givenSetupToken,
}: {
  mode: "sign-in" | "sign-up";
  next?: string;
  email?: string;
  /** Sign-up from an invitation link: the account joins the inviting organization and opens it. */
  invitation?: string;
  /** From the sign-up link scripts/up.sh prints: the install's first account needs it. */
  setupToken?: string;
}) {
  const trpc = useTRPC();
  const [email, setEmail] = useState(fixedEmail ?? "");
  const [password, setPassword] = useState("");
  const [name, setName] = useState("");
  const [setupToken, setSetupToken] = useState(givenSetupToken ?? "");
  const router = useRouter();
  const queryClient = useQueryClient();
  const go = () => {
    // Everything cached so far was read signed out (pages and queries alike).
    queryClient.clear();
    router.refresh();
    // `next` only when it resolves to a page of this app (checked in the browser, where the origin is known).
    router.replace(safeNextPath(next, window.location.origin));
  };
  const signIn = useMutation(trpc.auth.signIn.mutationOptions({ onSuccess: go }));
  const signUp = useMutation(
    trpc.auth.signUp.mutationOptions({
      onSuccess: (account) => {
        // An ordinary sign-up is finished from the mailed link: this page says so and stays.
        if (!account.signedIn) return;
        if (account.orgSlug) {
          openOrganization(account.orgSlug);
          queryClient.clear();
          router.refresh();
          router.replace("/");
          return;
        }
        go();
      },
    }),
  );
  const m = mode === "sign-in" ? signIn : signUp;
  const errors = fieldErrors(m.error);
  if (mode === "sign-up" && signUp.data && !signUp.data.signedIn) {
    return (
      <div role="status" aria-label="Check your inbox" className="space-y-3 text-sm text-slate-700">
        <p className="font-medium text-slate-900">Check your inbox</p>
        <p>{signUp.data.message}</p>
        <p>
          We wrote to <span className="font-medium">{signUp.data.email}</span>. The link works for 24 hours; nothing
          arrived? Look in the spam folder, or sign up again.
        </p>
      </div>
    );
  }
  return (
    <form
      className="space-y-4"
      aria-label={mode === "sign-in" ? "Sign in" : "Create account"}
      onSubmit={(e) => {
        e.preventDefault();
        if (mode === "sign-in") signIn.mutate({ email, password });
        else
          signUp.mutate({ email, password, name: name || undefined, invitation, setupToken: setupToken || undefined });
      }}
    >
      {mode === "sign-up" && (
        <Field label="Name" htmlFor="auth-name" error={errors.name}>
          <input
            id="auth-name"
            className={inputClass}
            value={name}
            onChange={(e) => setName(e.target.value)}
            autoComplete="name"
          />
        </Field>
      )}
      <Field label="Email" htmlFor="auth-email" error={errors.email}>
        <input
          id="auth-email"
          type="email"
          className={inputClass}
          value={email}
          readOnly={!!fixedEmail}
          onChange={(e) => setEmail(e.target.value)}
          autoComplete="email"
          aria-invalid={!!errors.email}
          required
        />
      </Field>
      <Field
        label="Password"
        htmlFor="auth-password"
        error={errors.password}
        hint={mode === "sign-up" ? "At least 10 characters" : undefined}
      >
        <input
          id="auth-password"
          type="password"
          className={inputClass}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          autoComplete={mode === "sign-in" ? "current-password" : "new-password"}
          aria-invalid={!!errors.password}
          required
        />
      </Field>
      {mode === "sign-up" && (givenSetupToken || errors.setupToken) && (
        <Field
          label="Setup token"
          htmlFor="auth-setup-token"
          error={errors.setupToken}
          hint="Only the install's first account needs it: scripts/up.sh printed it with the sign-up link."
        >
          <input
            id="auth-setup-token"
            className={`${inputClass} font-mono`}
            value={setupToken}
            onChange={(e) => setSetupToken(e.target.value)}
            autoComplete="off"
            aria-invalid={!!errors.setupToken}
          />
        </Field>
      )}
      {m.isError && !Object.keys(errors).length && (
        <p role="alert" className="text-sm text-rose-700">
          {errorMessage(m.error)}
        </p>
      )}
      <Button type="submit" className="w-full" disabled={m.isPending}>
        {mode === "sign-in"
          ? m.isPending
            ? "Signing in…"
            : "Sign in"
          : m.isPending
            ? "Creating account…"
            : "Create account"}
      </Button>
    </form>
  );
}
