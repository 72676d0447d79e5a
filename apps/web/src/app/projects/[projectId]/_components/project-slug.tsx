"use client";

import { useState } from "react";

/**
 * The project's slug, which the CLI and REST take as `--project`, with a command line ready to
 * copy. The slug stays when the project is renamed.
 */
export function ProjectSlug({ slug }: { slug: string }) {
  const line = `benchboard upload results.json --project ${slug}`;
  const [copied, setCopied] = useState<"ok" | "failed" | null>(null);
  return (
    <section className="mt-2 flex flex-wrap items-center gap-2 text-xs text-slate-600" aria-label="Project slug">
      <span>
        Slug <code className="rounded bg-slate-100 px-1 py-0.5 font-mono text-slate-800">{slug}</code>
      </span>
      <output
        className="rounded border border-slate-200 bg-slate-50 px-2 py-0.5 font-mono text-slate-800"
        aria-label="CLI command"
      >
        {line}
      </output>
      <button
        type="button"
        className="font-medium text-sky-700 hover:underline"
        onClick={() => {
          navigator.clipboard
            .writeText(line)
            .then(() => setCopied("ok"))
            .catch(() => setCopied("failed"));
        }}
      >
        Copy
      </button>
      <span aria-live="polite" className={copied === "failed" ? "text-rose-700" : "text-emerald-700"}>
        {copied === "ok" ? "Copied" : copied === "failed" ? "Copy failed: select the command instead" : ""}
      </span>
    </section>
  );
}
