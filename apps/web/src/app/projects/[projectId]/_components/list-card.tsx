"use client";

import { Card, EmptyState, ErrorState, Skeleton } from "@benchboard/ui";
import Link from "next/link";
import type { ReactNode } from "react";
import { errorMessage } from "~/trpc/errors";

/**
 * A project's list of targets, configs or scenarios: the card with its "New …" link for those who
 * may edit, and the loading, error and empty states around the list itself. `children` (dialogs)
 * are rendered in every state.
 */
export function ListCard<T>({
  title,
  newHref,
  newLabel,
  canEdit,
  query,
  loadingLabel,
  emptyTitle,
  empty,
  renderList,
  children,
}: {
  title: string;
  newHref: string;
  newLabel: string;
  canEdit: boolean;
  query: {
    isPending: boolean;
    isError: boolean;
    error: { message: string } | null;
    data: T[] | undefined;
    refetch: () => unknown;
  };
  loadingLabel: string;
  emptyTitle: string;
  empty: ReactNode;
  renderList: (items: T[]) => ReactNode;
  children?: ReactNode;
}) {
  return (
    <Card
      title={title}
      actions={
        canEdit && (
          <Link
            href={newHref}
            className="rounded-md bg-sky-600 px-3 py-1.5 text-sm font-medium text-white shadow-sm hover:bg-sky-700"
          >
            {newLabel}
          </Link>
        )
      }
    >
      {query.isPending ? (
        <Skeleton className="h-24" label={loadingLabel} />
      ) : query.isError || !query.data ? (
        <ErrorState
          message={query.error ? errorMessage(query.error) : "could not load the list"}
          onRetry={() => query.refetch()}
        />
      ) : query.data.length === 0 ? (
        <EmptyState title={emptyTitle}>{empty}</EmptyState>
      ) : (
        renderList(query.data)
      )}
      {children}
    </Card>
  );
}

/**
 * The actions of a list row: Edit (View for those who may not edit) and Delete, with any other
 * actions of the row before (`lead`) or between them (`extra`).
 */
export function RowActions({
  href,
  name,
  canEdit,
  onDelete,
  lead,
  extra,
}: {
  href: string;
  name: string;
  canEdit: boolean;
  onDelete: () => void;
  lead?: ReactNode;
  extra?: ReactNode;
}) {
  return (
    <span className="inline-flex items-center gap-3">
      {lead}
      <Link href={href} className="text-sky-700 hover:underline" aria-label={`${canEdit ? "Edit" : "View"} ${name}`}>
        {canEdit ? "Edit" : "View"}
      </Link>
      {extra}
      {canEdit && (
        <button
          type="button"
          className="text-rose-700 hover:underline"
          aria-label={`Delete ${name}`}
          onClick={onDelete}
        >
          Delete
        </button>
      )}
    </span>
  );
}
