"use client";

import { Button, Field, inputClass } from "@benchboard/ui";
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "~/trpc/client";
import { errorMessage, fieldErrors } from "~/trpc/errors";

/**
 * Asks for a reset link. The answer is the same whether or not the email has an account, so the
 * page says only that a link was sent if one exists.
 */
export function ForgotPasswordForm() {
  const trpc = useTRPC();
  const [email, setEmail] = useState("");
  const request = useMutation(trpc.auth.requestPasswordReset.mutationOptions());
  const errors = fieldErrors(request.error);
  if (request.isSuccess) {
    return (
      <div role="status" className="space-y-3 text-sm text-slate-700">
        <p>{request.data.message}</p>
        <p className="text-slate-500">
          The link works once and expires soon. Nothing arrived? Check the address you typed and your spam folder, then
          ask again.
        </p>
        <Button variant="secondary" onClick={() => request.reset()}>
          Ask again
        </Button>
      </div>
    );
  }
  return (
    <form
      className="space-y-4"
      aria-label="Ask for a reset link"
      onSubmit={(e) => {
        e.preventDefault();
        request.mutate({ email });
      }}
    >
      <p className="text-sm text-slate-600">
        Enter the email of your account and we will send you a link to choose a new password.
      </p>
      <Field label="Email" htmlFor="reset-email" error={errors.email}>
        <input
          id="reset-email"
          type="email"
          className={inputClass}
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          autoComplete="email"
          aria-invalid={!!errors.email}
          required
        />
      </Field>
      {request.isError && !Object.keys(errors).length && (
        <p role="alert" className="text-sm text-rose-700">
          {errorMessage(request.error)}
        </p>
      )}
      <Button type="submit" className="w-full" disabled={request.isPending}>
        {request.isPending ? "Sending…" : "Send reset link"}
      </Button>
    </form>
  );
}
