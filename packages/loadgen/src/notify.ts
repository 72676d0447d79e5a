import {
  channelBody,
  type InstallSettings,
  type NotificationChannelKind,
  type NotificationEnvelope,
} from "@benchboard/core";
import { Webhook } from "standardwebhooks";
import { describeStatus, OutboundError, outboundRequest } from "./outbound";
import type { Resolve, SafetyPolicy } from "./target-safety";

/**
 * Notification deliveries: a tenant's webhook URL is as hostile as a target URL, so every
 * delivery goes through the outbound client (checked address, no redirects, bounded time and
 * size) and the receiver's answer is read only for its status, never kept or shown.
 */

/**
 * Where a notification endpoint may point, for an organization: the one decision both the save
 * (Settings) and every delivery (worker) ask. Today it is the operator's allow-list for everyone;
 * an allow-list entry scoped to the install's own organization plugs in here.
 */
export function notificationSafetyPolicy(
  settings: Pick<InstallSettings, "allowedTargets">,
  _org: { installOrg: boolean },
  resolve?: Resolve,
): SafetyPolicy {
  return { allowList: settings.allowedTargets, ...(resolve ? { resolve } : {}) };
}

export const DELIVERY_TIMEOUT_MS = 10_000;
/** Receivers answer "ok"; anything bigger is read no further than this. */
export const DELIVERY_MAX_BYTES = 64 * 1024;

export interface DeliveryRequest {
  channel: NotificationChannelKind;
  url: string;
  /** Signing secrets (`whsec_…`); each adds a signature (the previous one during a rotation). */
  secrets: string[];
  event: NotificationEnvelope;
}

export type DeliveryOutcome =
  | { ok: true; status: number }
  | { ok: false; status: number | null; error: string; permanent: boolean };

/** The Standard Webhooks headers for a body: id, timestamp and one `v1,` signature per secret. */
export function signWebhook(event: NotificationEnvelope, body: string, secrets: string[], now = new Date()) {
  const signatures = secrets.map((s) => new Webhook(s).sign(event.id, now, body));
  return {
    "webhook-id": event.id,
    "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
    "webhook-signature": signatures.join(" "),
  };
}

/** One attempt: POST the channel's body; a 2xx is delivered, anything else is not. */
export async function deliverNotification(
  request: DeliveryRequest,
  policy: SafetyPolicy,
  options: { timeoutMs?: number } = {},
): Promise<DeliveryOutcome> {
  const body = channelBody(request.channel, request.event);
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "user-agent": "Benchboard-Notifications/1",
  };
  if (request.channel === "webhook") {
    if (!request.secrets.length)
      return { ok: false, status: null, error: "the endpoint has no signing secret", permanent: true };
    Object.assign(headers, signWebhook(request.event, body, request.secrets));
  }
  try {
    const res = await outboundRequest(request.url, {
      method: "POST",
      headers,
      body,
      policy,
      timeoutMs: options.timeoutMs ?? DELIVERY_TIMEOUT_MS,
      maxBytes: DELIVERY_MAX_BYTES,
    });
    if (res.status >= 200 && res.status < 300) return { ok: true, status: res.status };
    // 410 Gone is a receiver saying it is not coming back.
    return { ok: false, status: res.status, error: describeStatus(res), permanent: res.status === 410 };
  } catch (err) {
    if (err instanceof OutboundError) {
      return { ok: false, status: err.status ?? null, error: err.message, permanent: err.kind === "refused" };
    }
    return { ok: false, status: null, error: "the request could not be sent", permanent: false };
  }
}
