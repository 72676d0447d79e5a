import { EngineConfigError } from "./types";

const ABSOLUTE = /^[a-z][a-z0-9+.-]*:/i;

/**
 * Resolve a scenario path against a target base URL; only http(s) is accepted. The base URL's
 * own path is a prefix: a gateway registered as `http://host/api` with the scenario path
 * `/v1/chat/completions` is sent to `http://host/api/v1/chat/completions`. An absolute URL must
 * stay on the target's origin.
 */
export function resolveTargetUrl(baseUrl: string, path: string): URL {
  let base: URL;
  try {
    base = new URL(baseUrl);
  } catch {
    throw new EngineConfigError("baseUrl", `not a valid URL: ${JSON.stringify(baseUrl)}`);
  }
  if (base.protocol !== "http:" && base.protocol !== "https:") {
    throw new EngineConfigError("baseUrl", `unsupported protocol ${base.protocol} (use http or https)`);
  }
  let url: URL;
  if (ABSOLUTE.test(path) || path.startsWith("//")) {
    url = new URL(path, base);
  } else {
    const prefix = base.pathname.replace(/\/+$/, "");
    url = new URL(`${prefix}/${path.replace(/^\/+/, "")}`, base.origin);
  }
  if (url.origin !== base.origin) throw new EngineConfigError("path", "must stay on the target's origin");
  return url;
}
