"use client";

import { useState } from "react";

/**
 * The clipboard API needs a secure context (HTTPS or localhost); an install reached over plain
 * HTTP on a LAN address has none, so copy through a selected, hidden text field there.
 */
async function copyText(text: string): Promise<void> {
  if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
  const field = document.createElement("textarea");
  field.value = text;
  field.setAttribute("readonly", "");
  field.style.position = "fixed";
  field.style.opacity = "0";
  document.body.append(field);
  field.select();
  try {
    if (!document.execCommand("copy")) throw new Error("copy refused");
  } finally {
    field.remove();
  }
}

/** Copies `text` to the clipboard and says whether it worked (next to the button, for screen readers too). */
export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [copied, setCopied] = useState<"ok" | "failed" | null>(null);
  return (
    <span className="inline-flex items-center gap-2">
      <button
        type="button"
        className="whitespace-nowrap text-xs font-medium text-sky-700 hover:underline"
        onClick={() => {
          copyText(text)
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
