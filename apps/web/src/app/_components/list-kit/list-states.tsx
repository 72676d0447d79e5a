"use client";

import { EmptyState, ErrorState, Skeleton } from "@benchboard/ui";
import type { ReactNode } from "react";
import { errorMessage } from "~/trpc/errors";

/** What a list query looks like to the kit (a tRPC `useQuery` or `useInfiniteQuery` result). */
export interface ListQuery {
  isPending: boolean;
  isError: boolean;
  error: unknown;
  refetch: () => unknown;
}

/**
 * The states around a list: loading, failed (with a retry), empty (its own words, and other words
 * when filters hide every row), else the list itself.
 */
export function ListStates({
  query,
  count,
  loadingLabel,
  emptyTitle,
  empty,
  filtered,
  filteredTitle = "Nothing matches these filters",
  filteredHint = "Clear a filter to see more.",
  loadingClassName = "h-24",
  children,
}: {
  query: ListQuery;
  /** Rows to show after filters; undefined while nothing arrived. */
  count: number | undefined;
  loadingLabel: string;
  emptyTitle: string;
  empty?: ReactNode;
  filtered?: boolean;
  filteredTitle?: string;
  filteredHint?: ReactNode;
  loadingClassName?: string;
  children: ReactNode;
}) {
  if (query.isPending) return <Skeleton className={loadingClassName} label={loadingLabel} />;
  if (query.isError || count === undefined) {
    return (
      <ErrorState
        message={query.error ? errorMessage(query.error) : "could not load the list"}
        onRetry={() => query.refetch()}
      />
    );
  }
  if (count === 0) {
    return filtered ? (
      <EmptyState title={filteredTitle}>{filteredHint}</EmptyState>
    ) : (
      <EmptyState title={emptyTitle}>{empty}</EmptyState>
    );
  }
  return <>{children}</>;
}
