"use client";

import { Button, ErrorState, Skeleton } from "@benchboard/ui";
import type { QueryKey } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import type { ReactNode } from "react";
import { useRefreshKind } from "~/app/projects/[projectId]/_components/use-refresh-kind";
import { errorMessage } from "~/trpc/errors";
import { ReadOnlyNotice } from "../read-only-notice";
import { generalError } from "./values";

/** A form-level message for errors that belong to no field shown. */
export function FormAlert({ children }: { children: ReactNode }) {
  if (!children) return null;
  return (
    <p role="alert" className="rounded-md border border-rose-200 bg-rose-50 px-3 py-2 text-sm text-rose-800">
      {children}
    </p>
  );
}

export const smallInputClass =
  "w-full rounded-md border border-slate-300 bg-white px-2 py-1 text-sm text-slate-900 shadow-sm focus:border-sky-500 focus:outline-none focus:ring-2 focus:ring-sky-200 aria-[invalid=true]:border-rose-400";

export function InlineError({ id, message }: { id: string; message?: string }) {
  if (!message) return null;
  return (
    <p id={id} role="alert" className="mt-0.5 text-xs font-medium text-rose-700">
      {message}
    </p>
  );
}

/**
 * The foot of an editor: errors that belong to no field shown, the failed save's own message,
 * then save and cancel.
 */
export function EditorActions({
  unshown,
  saveError,
  pending,
  label,
  cancelHref,
  canEdit = true,
}: {
  unshown: string | null;
  saveError: unknown;
  pending: boolean;
  label: string;
  cancelHref: string;
  /** False for viewers: the form is shown read-only, with no save. */
  canEdit?: boolean;
}) {
  if (!canEdit) {
    return (
      <div className="space-y-3">
        <ReadOnlyNotice>You are a viewer in this organization: members and owners change this.</ReadOnlyNotice>
        <Link href={cancelHref} className="text-sm text-sky-700 hover:underline">
          Back to the list
        </Link>
      </div>
    );
  }
  return (
    <>
      <FormAlert>{unshown}</FormAlert>
      <FormAlert>{generalError(saveError)}</FormAlert>
      <div className="flex items-center gap-3">
        <Button type="submit" disabled={pending}>
          {pending ? "Saving…" : label}
        </Button>
        <Link href={cancelHref} className="text-sm text-slate-600 hover:underline">
          Cancel
        </Link>
      </div>
    </>
  );
}

/**
 * What an editor does once saved: refresh the edited kind's queries and the project's (its
 * counts), then go back to the list.
 */
export function useSavedThenBack(kindKey: QueryKey, listUrl: string): () => Promise<void> {
  const refresh = useRefreshKind(kindKey);
  const router = useRouter();
  return async () => {
    await refresh();
    router.push(listUrl);
  };
}

/**
 * The fields of an editor: disabled as a whole for viewers, so they read every setting but change
 * none. Spaced like the editor's cards.
 */
export function EditorFields({ canEdit, children }: { canEdit: boolean; children: ReactNode }) {
  return (
    <fieldset disabled={!canEdit} className="min-w-0 space-y-6">
      {children}
    </fieldset>
  );
}

/**
 * An editor's form element: submitting never reloads the page, it calls `onSubmit`; `label`
 * names the form for assistive technology and tests.
 */
export function SubmitForm({
  label,
  className,
  onSubmit,
  onChange,
  children,
}: {
  label: string;
  className?: string;
  onSubmit: () => void;
  onChange?: () => void;
  children: ReactNode;
}) {
  return (
    <form
      aria-label={label}
      className={className}
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit();
      }}
      onChange={onChange}
    >
      {children}
    </form>
  );
}

/**
 * An editor of something stored: while it loads, a placeholder; when it cannot be read, why (with
 * a retry); then the form, keyed by the stored version so a newer one starts a fresh form. With
 * no `id` the form is for a new one.
 */
export function EditorLoader<T extends { updatedAt: Date | string }>({
  id,
  kind,
  query,
  children,
}: {
  id: string | undefined;
  /** What is edited, capitalised ("Instance config"). */
  kind: string;
  query: { isPending: boolean; isError: boolean; error: unknown; data: T | undefined; refetch: () => unknown };
  children: (stored: T | undefined, key: string) => ReactNode;
}) {
  if (id && query.isPending) return <Skeleton className="h-96" label={`Loading ${kind.toLowerCase()}`} />;
  if (id && query.isError) {
    return (
      <ErrorState title={`${kind} not available`} message={errorMessage(query.error)} onRetry={() => query.refetch()} />
    );
  }
  return <>{children(query.data, query.data ? String(query.data.updatedAt) : "new")}</>;
}
