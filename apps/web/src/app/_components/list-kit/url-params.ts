/**
 * Pure helpers of the list kit: a list's filters and page live in the address, so a filtered list
 * can be linked, reloaded and walked back through with the browser's history.
 */

/** The address's query after a change: empty values leave it, everything else stays as it was. */
export function searchWith(current: URLSearchParams, patch: Record<string, string | undefined>): string {
  const next = new URLSearchParams(current.toString());
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined || value === "") next.delete(key);
    else next.set(key, value);
  }
  const text = next.toString();
  return text ? `?${text}` : "";
}

/** A 1-based page number read from the address; anything else is page 1. */
export function pageParam(text: string | null | undefined): number {
  const n = Number(text);
  return Number.isInteger(n) && n >= 1 ? n : 1;
}

/** One page of a list, with the page clamped to the last one (a link kept after rows were deleted). */
export function pageOf<T>(
  items: readonly T[],
  page: number,
  size: number,
): { items: T[]; page: number; pages: number } {
  const pages = Math.max(1, Math.ceil(items.length / size));
  const at = Math.min(Math.max(1, page), pages);
  return { items: items.slice((at - 1) * size, at * size), page: at, pages };
}

/** Whether any of a row's texts holds every word of the query, ignoring case. */
export function matchesQuery(texts: readonly (string | null | undefined)[], query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const haystack = texts.filter(Boolean).join(" ").toLowerCase();
  return words.every((w) => haystack.includes(w));
}
