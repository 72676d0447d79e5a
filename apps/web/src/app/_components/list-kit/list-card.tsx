"use client";

import { Card, type Column, DataTable, Pager } from "@benchboard/ui";
import Link from "next/link";
import type { ReactNode } from "react";
import { TextFilter } from "./filter-fields";
import { type ListQuery, ListStates } from "./list-states";
import { matchesQuery, pageOf, pageParam } from "./url-params";
import { useUrlParams } from "./use-url-params";

export const LIST_PAGE_SIZE = 25;

/**
 * A list in a card: the "New …" link for those who may edit, a name filter and the page kept in
 * the address (`?q=`, `?page=`), the loading, error and empty states, and the table. `children`
 * (dialogs) are rendered in every state.
 */
export function ListCard<T>({
  title,
  noun,
  newHref,
  newLabel,
  canEdit,
  query,
  data,
  searchText,
  columns,
  rowKey,
  emptyTitle,
  empty,
  pageSize = LIST_PAGE_SIZE,
  children,
}: {
  title: string;
  /** What the rows are, plural and lower case ("targets"). */
  noun: string;
  newHref?: string;
  newLabel?: string;
  canEdit: boolean;
  query: ListQuery;
  data: readonly T[] | undefined;
  /** The texts the filter box searches in a row; no filter box without it. */
  searchText?: (row: T) => (string | null | undefined)[];
  columns: readonly Column<T>[];
  rowKey: (row: T) => string;
  emptyTitle: string;
  empty?: ReactNode;
  pageSize?: number;
  children?: ReactNode;
}) {
  const url = useUrlParams();
  const q = url.get("q") ?? "";
  const matching = searchText && data ? data.filter((row) => matchesQuery(searchText(row), q)) : data;
  const shown = matching ? pageOf(matching, pageParam(url.get("page")), pageSize) : undefined;
  const filterId = `filter-${noun.replace(/\W+/g, "-")}`;
  return (
    <Card
      title={title}
      actions={
        canEdit &&
        newHref && (
          <Link
            href={newHref}
            className="rounded-md bg-sky-600 px-3 py-1.5 text-sm font-medium text-white shadow-sm hover:bg-sky-700"
          >
            {newLabel}
          </Link>
        )
      }
    >
      {searchText && (data?.length || q) ? (
        <div className="mb-3 max-w-sm">
          <TextFilter
            id={filterId}
            type="search"
            label={`Filter ${noun}`}
            placeholder="Name or any shown text"
            value={q || undefined}
            onChange={(v) => url.set({ q: v, page: undefined })}
          />
        </div>
      ) : null}
      <ListStates
        query={query}
        count={matching?.length}
        loadingLabel={`Loading ${noun}`}
        emptyTitle={emptyTitle}
        empty={empty}
        filtered={q !== ""}
        filteredTitle={`No ${noun} match “${q}”`}
        filteredHint="Clear the filter to see them all."
      >
        {shown && (
          <>
            <DataTable label={title} columns={columns} rows={shown.items} rowKey={rowKey} />
            <Pager
              page={shown.page}
              pages={shown.pages}
              total={matching?.length ?? 0}
              noun={noun}
              onPage={(page) => url.set({ page: page === 1 ? undefined : String(page) })}
            />
          </>
        )}
      </ListStates>
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

/** The last column of a list: a row's actions, right-aligned and never wrapping. */
export function actionsColumn<T>(cell: (row: T) => ReactNode): Column<T> {
  return { key: "actions", srHeader: "Actions", align: "right", className: "pl-6 whitespace-nowrap", cell };
}
