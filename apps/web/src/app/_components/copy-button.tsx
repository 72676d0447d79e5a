"use client";

import { useState } from "react";

/** Copies `text` to the clipboard and says whether it worked (next to the button, for screen readers too). */
export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [copied, setCopied] = useState<"ok" | "failed" | null>(null);
  return (
    <span className="inline-flex items-center gap-2">
      <button
        type="button"
        className="text-xs font-medium text-sky-700 hover:underline"
        onClick={() => {
          navigator.clipboard
            .writeText(text)
            .then(() => setCopied("ok"))
            .catch(() => setCopied("failed"));
        }}
      >
        {label}
      </button>
      <span aria-live="polite" className={`text-xs ${copied === "failed" ? "text-rose-700" : "text-emerald-700"}`}>
        {copied === "ok" ? "Copied" : copied === "failed" ? "Copy failed: select the text instead" : ""}
      </span>
    </span>
  );
}
