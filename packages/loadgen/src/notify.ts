import { promises as dns } from "node:dns";
import { channelBody, type HttpNotificationChannel, type NotificationEnvelope, statusClass } from "@benchboard/core";
import { Webhook } from "standardwebhooks";
import { describeStatus, OutboundError, outboundRequest } from "./outbound";
import { type Resolve, resolveUrl, type SafetyPolicy, type UrlVerdict } from "./target-safety";

/**
 * Notification deliveries: a tenant's webhook URL is as hostile as a target URL, so every
 * delivery goes through the outbound client (checked address, no redirects, bounded time and
 * size) and the receiver's answer is read only for its status, never kept or shown.
 *
 * Where a receiver may point is the organization's own address rule — the policy its targets,
 * monitors and config hooks get (`orgAllowList` / `safetyPolicyFor`): the operator's whole
 * allow-list for the install's own organization, only what the operator opened to tenants for
 * any other. Settings asks it when an endpoint is saved, enabled or tested, and the worker asks
 * it again before every attempt.
 */

export const DELIVERY_TIMEOUT_MS = 10_000;
/**
 * A non-2xx answer is read this far for its size (the install's own organization sees it); a
 * 2xx answer's body is not read at all: the status is the receiver's whole answer.
 */
export const DELIVERY_MAX_BYTES = 64 * 1024;

export interface DeliveryRequest {
  channel: HttpNotificationChannel;
  url: string;
  /** Signing secrets (`whsec_…`); each adds a signature (the previous one during a rotation). */
  secrets: string[];
  event: NotificationEnvelope;
}

/**
 * Why an attempt failed: `refused` by the address rule, `unresolved` (the name did not resolve
 * now), `unreachable`, `timeout`, `too-large` (the answer), `status` (a non-2xx answer), `setup`
 * (the endpoint cannot sign).
 */
export type DeliveryFailureKind =
  | "refused"
  | "unresolved"
  | "unreachable"
  | "timeout"
  | "too-large"
  | "status"
  | "setup";

export type DeliveryOutcome =
  | { ok: true; status: number }
  | { ok: false; status: number | null; kind: DeliveryFailureKind; error: string; permanent: boolean };

/**
 * A failed attempt as a tenant may read it: what kind of failure, and the status class, never
 * the exact status or how many bytes came back (together they fingerprint whatever answered).
 * The install's own organization keeps `outcome.error`, which has both.
 */
export function tenantDeliveryError(outcome: Extract<DeliveryOutcome, { ok: false }>): string {
  switch (outcome.kind) {
    case "status": {
      const cls = statusClass(outcome.status) ?? "an unexpected status";
      return cls === "3xx" ? "the receiver answered 3xx (redirects are not followed)" : `the receiver answered ${cls}`;
    }
    case "refused":
    case "setup":
      // The address rule's own words, as Settings gives them when the endpoint is saved.
      return outcome.error;
    case "unresolved":
      return "the receiver's name did not resolve";
    case "unreachable":
      return "the receiver could not be reached";
    case "timeout":
      return "the receiver did not answer in time";
    case "too-large":
      return "the receiver's answer was too large";
  }
}

const systemResolve: Resolve = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

/**
 * The address rule's verdict on a receiver URL, and whether a refusal only means the name did
 * not resolve right now (a DNS hiccup must not count as the rule refusing the endpoint).
 */
export async function judgeReceiver(url: string, policy: SafetyPolicy): Promise<UrlVerdict & { unresolved?: boolean }> {
  let unresolved = false;
  const resolve = policy.resolve ?? systemResolve;
  const verdict = await resolveUrl(url, {
    ...policy,
    resolve: async (host) => {
      try {
        return await resolve(host);
      } catch (err) {
        unresolved = true;
        throw err;
      }
    },
  });
  return verdict.allowed ? verdict : { ...verdict, unresolved };
}

/** The Standard Webhooks headers for a body: id, timestamp and one `v1,` signature per secret. */
export function signWebhook(event: NotificationEnvelope, body: string, secrets: string[], now = new Date()) {
  const signatures = secrets.map((s) => new Webhook(s).sign(event.id, now, body));
  return {
    "webhook-id": event.id,
    "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
    "webhook-signature": signatures.join(" "),
  };
}

/**
 * One attempt: POST the channel's body; a 2xx is delivered once its status arrives (a big or
 * slow body after it changes nothing), anything else is not.
 */
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
      return { ok: false, status: null, kind: "setup", error: "the endpoint has no signing secret", permanent: true };
    Object.assign(headers, signWebhook(request.event, body, request.secrets));
  }
  // Judged now, whatever was judged at save: the rule or the name's address may have changed.
  const verdict = await judgeReceiver(request.url, policy);
  if (!verdict.allowed) {
    // A refusal is not retried (waiting does not make an address allowed); a name that did not
    // resolve may resolve at the next attempt.
    return verdict.unresolved
      ? { ok: false, status: null, kind: "unresolved", error: `refused: ${verdict.reason}`, permanent: false }
      : { ok: false, status: null, kind: "refused", error: `refused: ${verdict.reason}`, permanent: true };
  }
  // The connection goes to the address just checked: no second lookup can answer differently.
  const pinned: SafetyPolicy = {
    allowList: policy.allowList,
    resolve: async () => [{ address: verdict.pin.address, family: verdict.pin.family }],
  };
  try {
    const res = await outboundRequest(request.url, {
      method: "POST",
      headers,
      body,
      policy: pinned,
      timeoutMs: options.timeoutMs ?? DELIVERY_TIMEOUT_MS,
      maxBytes: DELIVERY_MAX_BYTES,
      readBody: (status) => status < 200 || status >= 300,
    });
    if (res.status >= 200 && res.status < 300) return { ok: true, status: res.status };
    // 410 Gone is a receiver saying it is not coming back.
    return { ok: false, status: res.status, kind: "status", error: describeStatus(res), permanent: res.status === 410 };
  } catch (err) {
    if (err instanceof OutboundError) {
      return {
        ok: false,
        status: err.status ?? null,
        kind: err.kind,
        error: err.message,
        permanent: err.kind === "refused",
      };
    }
    return { ok: false, status: null, kind: "unreachable", error: "the request could not be sent", permanent: false };
  }
}
