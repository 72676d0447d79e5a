import { z } from "zod";

/**
 * A target's plain fields as the API takes them: the server's target schema is built from these,
 * and the editor checks with them before sending, so both give the same message at the same field.
 */

/**
 * An http(s) address's start, as a pattern the OpenAPI document carries (a refinement does not
 * reach it): a scheme in any case, `://` and a host's first character; surrounding spaces are
 * trimmed. The full syntax (WHATWG URL parsing, then the address rules) is the refinement's.
 */
export const HTTP_URL_PATTERN = /^\s*[hH][tT][tT][pP][sS]?:\/\/[^\s/?#]/;

export const ZHttpUrl = z
  .string()
  .trim()
  .max(2_000, "a URL is at most 2,000 characters")
  // One message for a bad URL: the full check below runs only on what looks like one.
  .regex(HTTP_URL_PATTERN, { error: "must be an http:// or https:// URL", abort: true })
  .refine((v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol), "must be an http:// or https:// URL");

export const ZTargetName = z.string().trim().min(1, "name is required").max(80, "name is at most 80 characters");

export const ZHeaderName = z
  .string()
  .trim()
  .min(1, "header name is required")
  .max(200)
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, "not a valid header name");

/** The fields of a target the editor checks as typed: name, base URL and the config-apply URL. */
export const ZTargetBasics = z.object({
  name: ZTargetName,
  baseUrl: ZHttpUrl,
  configApplyUrl: ZHttpUrl.nullish().or(z.literal("").transform(() => null)),
});
