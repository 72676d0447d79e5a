import { agentQueueByLabel, verifyAgentToken } from "@benchboard/db";
import { z } from "zod";
import type { RestDeps } from "./auth";
import { json, RestError, type RestRequest, type RestResponse, restErrorResponse, zodFailure } from "./http";

/**
 * GET /api/v1/agent/queue: the organization's agent work per label (waiting runs, waiting and
 * running shards), for an autoscaler that brings agents up for a label's work and lets them go
 * after (the Helm chart's KEDA `metrics-api` trigger reads `activeShards` with `?label=`).
 * Read with an agent token, like every agent route; it reveals counts of the token's
 * organization only.
 */

/** An autoscaler polls each label every few seconds; this leaves room for many labels. */
const QUEUE_REQUESTS_PER_MINUTE = 600;
const BEARER = /^Bearer\s+(\S+)\s*$/i;

export const ZAgentQueueQuery = z.object({
  label: z
    .string()
    .trim()
    .min(1, { error: "label: give a label, or leave the parameter out for every label" })
    .max(100, { error: "label: at most 100 characters" })
    .optional(),
});

export async function agentQueueHandler(req: RestRequest, deps: RestDeps): Promise<RestResponse> {
  try {
    const raw = BEARER.exec(req.headers.get("authorization") ?? "")?.[1];
    const unauthorized = (message: string) =>
      new RestError(401, message, {}, { "www-authenticate": 'Bearer realm="benchboard-agent"' });
    if (!raw) throw unauthorized("missing agent token: send the header Authorization: Bearer <agent token>");
    const caller = await verifyAgentToken(deps.db, raw);
    if (!caller) throw unauthorized("the agent token is invalid or revoked");
    const limit = await deps.rateLimit.hit(`agent-queue:${caller.tokenId}`, QUEUE_REQUESTS_PER_MINUTE, 60).catch(() => {
      throw new RestError(
        503,
        "the rate limiter (Redis) is unavailable; try again shortly",
        {},
        { "retry-after": "5" },
      );
    });
    if (!limit.allowed) {
      throw new RestError(
        429,
        `too many queue reads with this agent token; try again in ${limit.retryAfterS} s`,
        {},
        { "retry-after": String(limit.retryAfterS) },
      );
    }
    const url = new URL(req.url, "http://localhost");
    const parsed = ZAgentQueueQuery.safeParse({ label: url.searchParams.get("label") ?? undefined });
    if (!parsed.success) throw zodFailure(parsed.error);
    const { label } = parsed.data;
    const labels = await agentQueueByLabel(deps.db, caller.orgId, label);
    // One label: its counts at the top level, where a metrics adapter reads them by name.
    if (label !== undefined) return json(200, labels[0], { "cache-control": "no-store" });
    return json(200, { labels }, { "cache-control": "no-store" });
  } catch (err) {
    return restErrorResponse(err, "GET /agent/queue");
  }
}
