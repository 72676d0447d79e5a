import { agentQueueByLabel } from "@benchboard/db";
import { z } from "zod";
import { authorizeAgent } from "./agents";
import type { RestDeps } from "./auth";
import { json, type RestRequest, type RestResponse, restErrorResponse, zodFailure } from "./http";

/**
 * GET /api/v1/agent/queue: the organization's agent work per label (waiting runs, waiting and
 * running shards), for an autoscaler that brings agents up for a label's work and lets them go
 * after (the Helm chart's KEDA `metrics-api` trigger reads `activeShards` with `?label=`).
 * Read with an agent token, like every agent route; it reveals counts of the token's
 * organization only.
 */

/** An autoscaler polls each label every few seconds; this leaves room for many labels. */
const QUEUE_READS = { bucket: "agent-queue", perMinute: 600, what: "queue reads" };

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
    const caller = await authorizeAgent(req, deps, QUEUE_READS);
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
