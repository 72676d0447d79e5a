/**
 * The URLs the app is reached at. A request whose Host is none of them is misdirected (421): a
 * DNS name an attacker rebinds to this server's address, or a stray proxy, gets no answer, so a
 * page on another site cannot talk to the app as if it were the app's own origin.
 */
export function publicUrls(configured: string, listen: string | undefined, port: string | undefined): URL[] {
  const given = configured
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => new URL(s));
  if (given.length) return given;
  // Default: where the server listens; loopback (or every interface) is reached as 127.0.0.1
  // and localhost.
  const [host, listenPort] = splitHostPort(listen ?? `127.0.0.1:${port || "3000"}`);
  const loopback =
    host === "127.0.0.1" || host === "localhost" || host === "0.0.0.0" || host === "::" || host === "::1";
  const hosts = loopback ? ["127.0.0.1", "localhost", ...(host === "::1" || host === "::" ? ["[::1]"] : [])] : [host];
  return hosts.map((h) => new URL(`http://${h}:${listenPort}`));
}

function splitHostPort(text: string): [string, string] {
  const at = text.lastIndexOf(":");
  const host = text.slice(0, at).replace(/^\[|\]$/g, "");
  return [host, text.slice(at + 1)];
}

/** The public URL a request's Host names, or null when it names none (answer 421). */
export function matchPublicUrl(host: string | null, urls: URL[]): URL | null {
  if (!host) return null;
  const wanted = host.trim().toLowerCase();
  return urls.find((u) => u.host.toLowerCase() === wanted) ?? null;
}

/** What a request for a host the app does not answer for is told (421), on every path. */
export const MISDIRECTED_MESSAGE = "this server does not answer for that host name";

export function misdirected(): Response {
  return new Response(JSON.stringify({ error: { message: MISDIRECTED_MESSAGE } }), {
    status: 421,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" },
  });
}
