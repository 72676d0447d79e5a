import { ConfirmSignUpView } from "./confirm-sign-up-view";

export const metadata = { title: "Confirm your account" };

export default async function ConfirmSignUpPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  return <ConfirmSignUpView token={token} />;
}
