"use client";

/** When even the layout fails: a bare page with the same message (it replaces the root layout). */
export default function GlobalError({ reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <html lang="en">
      <body style={{ fontFamily: "system-ui, sans-serif", padding: "2rem", maxWidth: "36rem", margin: "0 auto" }}>
        <p style={{ color: "#64748b", fontSize: "0.875rem" }}>500</p>
        <h1 style={{ fontSize: "1.25rem" }}>Something went wrong</h1>
        <p role="alert">Benchboard could not show this page. The server log has the details.</p>
        <button type="button" onClick={reset}>
          Try again
        </button>
      </body>
    </html>
  );
}
