import type { ReactNode } from "react";

/** Where a viewer reaches a page for changing things: what it is for, and who may use it. */
export function ReadOnlyNotice({ children }: { children?: ReactNode }) {
  return (
    <div role="note" className="rounded-lg border border-slate-200 bg-slate-50 px-4 py-3 text-sm text-slate-700">
      {children ?? "You are a viewer in this organization: members and owners change things here."}
    </div>
  );
}
