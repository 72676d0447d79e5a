"use client";

/** A page that failed on the server: no details (they are in the server log), a way to retry. */
export default function ErrorPage({ reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <main className="mx-auto max-w-xl p-8">
      <p className="text-sm font-medium text-slate-500">500</p>
      <h1 className="mt-1 text-xl font-semibold">Something went wrong</h1>
      <p role="alert" className="mt-2 text-sm text-slate-600">
        The page could not be shown. The server log has the details; trying again often helps.
      </p>
      <div className="mt-4 flex gap-4 text-sm font-medium">
        <button type="button" onClick={reset} className="rounded bg-slate-800 px-3 py-1.5 text-white">
          Try again
        </button>
        <a href="/" className="py-1.5 text-sky-700 underline">
          Go to Benchboard
        </a>
      </div>
    </main>
  );
}
