import Link from "next/link";
import { AuthCard } from "../_components/auth/auth-card";
import { CredentialsForm } from "../_components/auth/credentials-form";

export const metadata = { title: "Create account" };

export default async function SignUpPage({
  searchParams,
}: {
  searchParams: Promise<{ next?: string; email?: string; invitation?: string; setup?: string }>;
}) {
  const { next, email, invitation, setup } = await searchParams;
  return (
    <AuthCard
      title="Create your account"
      footer={
        <>
          Already have one?{" "}
          <Link
            className="font-medium text-sky-700 hover:underline"
            href={`/sign-in${next ? `?next=${encodeURIComponent(next)}` : ""}`}
          >
            Sign in
          </Link>
        </>
      }
    >
      <CredentialsForm mode="sign-up" next={next} email={email} invitation={invitation} setupToken={setup} />
    </AuthCard>
  );
}
