import Link from "next/link";
import { publicCaller } from "~/server/callers";
import { AuthCard } from "../_components/auth/auth-card";
import { CredentialsForm } from "../_components/auth/credentials-form";

export const metadata = { title: "Sign in" };

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ next?: string }> }) {
  const { next } = await searchParams;
  const { hasOwner } = await publicCaller().auth.installState();
  return (
    <AuthCard
      title="Sign in"
      footer={
        <>
          New here?{" "}
          <Link
            className="font-medium text-sky-700 hover:underline"
            href={`/sign-up${next ? `?next=${encodeURIComponent(next)}` : ""}`}
          >
            Create an account
          </Link>
          {hasOwner
            ? " — to join an existing organization, ask one of its owners for an invitation."
            : " — the first account owns this install."}
        </>
      }
    >
      <CredentialsForm mode="sign-in" next={next} />
      <p className="mt-3 text-right text-sm">
        <Link className="font-medium text-sky-700 hover:underline" href="/forgot-password">
          Forgot password?
        </Link>
      </p>
    </AuthCard>
  );
}
