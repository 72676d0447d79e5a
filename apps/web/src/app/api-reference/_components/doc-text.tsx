import { inlineCode } from "./openapi-view";

/** A description from the document, with its `code` spans set as code. */
export function DocText({ text, className }: { text: string | null; className?: string }) {
  if (!text) return null;
  return (
    <p className={className}>
      {inlineCode(text).map((part, i) =>
        part.code ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one fixed string
          <code key={i} className="rounded bg-slate-100 px-1 font-mono text-[0.85em] text-slate-800">
            {part.text}
          </code>
        ) : (
          part.text
        ),
      )}
    </p>
  );
}
