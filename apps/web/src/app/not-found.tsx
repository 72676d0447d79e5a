import Link from "next/link";

export const metadata = { title: "Not found" };

/** Every unknown page, and every share link that is unknown, revoked or expired. */
export default function NotFound() {
  return (
    <main className="mx-auto max-w-xl p-8">
      <p className="text-sm font-medium text-slate-500">404</p>
      <h1 className="mt-1 text-xl font-semibold">This page does not exist</h1>
      <p className="mt-2 text-sm text-slate-600">
        The address may be mistyped, or what it pointed to was deleted, revoked or has expired.
      </p>
      <Link href="/" className="mt-4 inline-block text-sm font-medium text-sky-700 underline">
        Go to Benchboard
      </Link>
    </main>
  );
}
