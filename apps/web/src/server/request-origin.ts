import { clientAddress, type TrustedProxies } from "@benchboard/api/client-address";
import { env, trustedProxies } from "~/env";
import { matchPublicUrl, publicUrls } from "./public-url";

/**
 * What a request says about where it came from, believing forwarded headers only from a proxy
 * listed in BENCHBOARD_TRUSTED_PROXIES. The peer is the socket address server.mjs records; under
 * `next dev` (no server.mjs) it is unknown and every client shares one rate-limit key.
 */
export interface RequestOriginOptions {
  peerHeader?: string | undefined;
  trusted?: TrustedProxies;
  /** The URLs the app is reached at (BENCHBOARD_PUBLIC_URL, or where the server listens). */
  publicUrls?: URL[];
}

const configuredPublicUrls = publicUrls(env.BENCHBOARD_PUBLIC_URL, env.BENCHBOARD_LISTEN, env.PORT);

/** Where links in mail point: the first public URL (its path kept, without a trailing slash). */
export const linkBaseUrl = (configuredPublicUrls[0]?.href ?? "").replace(/\/+$/, "");

const defaults = (): Required<RequestOriginOptions> => ({
  peerHeader: env.BENCHBOARD_PEER_HEADER ?? "",
  trusted: trustedProxies,
  publicUrls: configuredPublicUrls,
});

/**
 * The public URL this request was addressed to (its Host header, or X-Forwarded-Host from a
 * trusted proxy), or null: a request for any other host name is answered 421.
 */
export function requestedPublicUrl(req: Request, options: RequestOriginOptions = {}): URL | null {
  return matchPublicUrl(requestHost(req, options), { ...defaults(), ...options }.publicUrls);
}

function peerOf(req: Request, peerHeader: string): string | null {
  return peerHeader ? req.headers.get(peerHeader) || null : null;
}

/** Whether the request reached us through a trusted proxy (so its X-Forwarded-* count). */
export function viaTrustedProxy(req: Request, options: RequestOriginOptions = {}): boolean {
  const { peerHeader, trusted } = { ...defaults(), ...options };
  const peer = peerOf(req, peerHeader);
  return peer !== null && trusted.has(peer);
}

/** The client's address for rate limits and audit. */
export function clientIp(req: Request, options: RequestOriginOptions = {}): string | null {
  const { peerHeader, trusted } = { ...defaults(), ...options };
  return clientAddress(peerOf(req, peerHeader), req.headers.get("x-forwarded-for"), trusted);
}

/** The host the client asked for: the Host header, or X-Forwarded-Host from a trusted proxy. */
export function requestHost(req: Request, options: RequestOriginOptions = {}): string | null {
  const forwarded = viaTrustedProxy(req, options) ? req.headers.get("x-forwarded-host")?.split(",")[0]?.trim() : null;
  return forwarded || req.headers.get("host");
}

/**
 * Served over https: the public URL it was addressed to is https, or a trusted proxy says so. The
 * request's own URL is not asked: the framework builds it from X-Forwarded-Proto, which any
 * client can send, and Secure cookies or HSTS must not be switched on by a stranger.
 */
export function isHttps(req: Request, options: RequestOriginOptions = {}): boolean {
  if (requestedPublicUrl(req, options)?.protocol === "https:") return true;
  return viaTrustedProxy(req, options) && req.headers.get("x-forwarded-proto")?.split(",")[0]?.trim() === "https";
}
