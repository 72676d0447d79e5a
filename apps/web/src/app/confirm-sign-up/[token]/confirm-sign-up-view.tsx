"use client";

import { Button, ErrorState } from "@benchboard/ui";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { AuthCard } from "~/app/_components/auth/auth-card";
import { useTRPC } from "~/trpc/client";
import { errorMessage } from "~/trpc/errors";

/**
 * The page behind a sign-up's mailed link. The account is made when the button is pressed, not
 * when the page opens, so a mail scanner that fetches links does not spend it.
 */
export function ConfirmSignUpView({ token }: { token: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const confirm = useMutation(
    trpc.auth.confirmSignUp.mutationOptions({
      onSuccess: () => {
        // Everything cached so far was read signed out.
        queryClient.clear();
        router.refresh();
        router.replace("/");
      },
    }),
  );
  return (
    <AuthCard
      title="Confirm your account"
      footer={
        <Link className="font-medium text-sky-700 hover:underline" href="/sign-in">
          Sign in instead
        </Link>
      }
    >
      {confirm.isError ? (
        <ErrorState title="This link cannot be used" message={errorMessage(confirm.error)} />
      ) : (
        <div className="space-y-4">
          <p className="text-sm text-slate-600">This email is yours: finish creating your account and sign in.</p>
          <Button className="w-full" disabled={confirm.isPending} onClick={() => confirm.mutate({ token })}>
            {confirm.isPending ? "Creating account…" : "Create my account"}
          </Button>
        </div>
      )}
    </AuthCard>
  );
}
