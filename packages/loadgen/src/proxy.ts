import { EnvHttpProxyAgent, fetch as undiciFetch } from "undici";

/**
 * Requests to the Benchboard server (the CLI's and the agent's) through the proxy an environment
 * names: `HTTP_PROXY` / `HTTPS_PROXY` (lowercase names win, as curl reads them), except hosts in
 * `NO_PROXY`. Load to targets never goes this way: a proxy between the generator and the target
 * would be what is measured.
 */
export interface ProxySettings {
  httpProxy?: string;
  httpsProxy?: string;
  noProxy?: string;
}

type Env = Readonly<Record<string, string | undefined>>;

const pick = (env: Env, name: string) => {
  const value = (env[name.toLowerCase()] ?? env[name.toUpperCase()])?.trim();
  return value ? value : undefined;
};

/** The proxy settings in `env`, or null when it names no proxy. */
export function proxySettings(env: Env): ProxySettings | null {
  const httpProxy = pick(env, "HTTP_PROXY");
  const httpsProxy = pick(env, "HTTPS_PROXY");
  if (!httpProxy && !httpsProxy) return null;
  const noProxy = pick(env, "NO_PROXY");
  return { ...(httpProxy ? { httpProxy } : {}), ...(httpsProxy ? { httpsProxy } : {}), noProxy: noProxy ?? "" };
}

/** A proxy's address as it may be printed: no user name or password. */
export function describeProxy(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return "(a proxy URL that does not parse)";
  }
}

/**
 * A `fetch` that goes through the proxy `settings` name (undici's `EnvHttpProxyAgent`, given the
 * values rather than reading `process.env`, so the caller's environment is the one that counts).
 */
export function proxiedFetch(settings: ProxySettings): typeof globalThis.fetch {
  const dispatcher = new EnvHttpProxyAgent(settings);
  return ((input: string | URL, init?: RequestInit) =>
    undiciFetch(input, { ...(init as object), dispatcher } as never)) as unknown as typeof globalThis.fetch;
}
