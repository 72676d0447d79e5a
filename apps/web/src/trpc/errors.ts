import { TRPCClientError } from "@trpc/client";

/** Field messages from a failed mutation, keyed by input path ("baseUrl", "spec.concurrency"). */
export function fieldErrors(error: unknown): Record<string, string> {
  if (!(error instanceof TRPCClientError)) return {};
  const data = error.data as
    | { fieldErrors?: Record<string, string[] | undefined> | null; zodIssues?: unknown }
    | undefined;
  const out: Record<string, string> = {};
  for (const [field, messages] of Object.entries(data?.fieldErrors ?? {})) {
    if (messages?.[0]) out[field] = messages[0];
  }
  return out;
}

/**
 * A failure in words for a person: the message alone, without the input path it concerns
 * ("not verified…", not "method: not verified…"); forms show field messages at their field.
 */
export function errorMessage(error: unknown): string {
  if (error instanceof TRPCClientError) {
    const fields = fieldErrors(error);
    const first = Object.values(fields)[0];
    return first ?? error.message;
  }
  return error instanceof Error ? error.message : String(error);
}
