import { EngineConfigError } from "./types";

/** Resolve a scenario path against a target base URL; only http(s) is accepted. */
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
  const url = new URL(path, base);
  if (url.origin !== base.origin) throw new EngineConfigError("path", "must stay on the target's origin");
  return url;
}
