/** How long an answer counts as fresh: the client does not ask again within it (on the server or in the browser). */
export const QUERY_STALE_MS = 5_000;
