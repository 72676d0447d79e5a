import { z } from "zod";
import { formatDeltaPct } from "./compare";
import { formatMetric, metricDef } from "./metrics";

/**
 * Outbound notifications: what happened (an event, recorded once), and how it reads on each
 * channel. Pure: recording and delivery live in packages/db and packages/loadgen.
 */

export const NOTIFICATION_EVENT_KINDS = [
  "run.started",
  "run.finished",
  "run.failed",
  "run.invalid",
  "thresholds.failed",
  "thresholds.not_measured",
  "regression.detected",
  "change_point.detected",
  "worker.offline",
  "agent.offline",
] as const;
export type NotificationEventKind = (typeof NOTIFICATION_EVENT_KINDS)[number];
export const ZNotificationEventKind = z.enum(NOTIFICATION_EVENT_KINDS);

/** A test delivery from Settings; not a kind a rule can choose. */
export const TEST_EVENT_KIND = "notification.test";

export const EVENT_KIND_LABELS: Record<NotificationEventKind, string> = {
  "run.started": "Run started",
  "run.finished": "Run finished (any outcome)",
  "run.failed": "Run failed",
  "run.invalid": "Run flagged invalid",
  "thresholds.failed": "Thresholds failed",
  "thresholds.not_measured": "Thresholds not measured",
  "regression.detected": "Regression against the baseline branch",
  "change_point.detected": "Change point in the trend",
  "worker.offline": "Worker offline",
  "agent.offline": "Load agent offline",
};

export const NOTIFICATION_CHANNELS = ["webhook", "slack", "teams", "email"] as const;
export type NotificationChannelKind = (typeof NOTIFICATION_CHANNELS)[number];
/** The channels that POST to a receiver's URL (email goes through the install's mail server). */
export type HttpNotificationChannel = Exclude<NotificationChannelKind, "email">;

/** At most this many addresses on one email endpoint. */
export const MAX_EMAIL_RECIPIENTS = 10;

/**
 * An email endpoint's recipients: addresses (at most 254 characters each, no display names, no
 * surrounding spaces), at most MAX_EMAIL_RECIPIENTS, each once whatever its case. Lowercased, so
 * comparisons with members' addresses are exact. Its JSON Schema states all of it but the
 * repeats, which are dropped, not refused.
 */
export const ZEmailRecipients = z
  .array(
    z
      .email({ error: "enter an email address, e.g. perf-team@example.com" })
      .max(254, "at most 254 characters")
      // The limits of RFC 5321, which mail servers enforce: 64 characters before the @, 63 a label after it.
      .refine((address) => (address.split("@")[0]?.length ?? 0) <= 64, "at most 64 characters before the @")
      .refine(
        (address) => (address.split("@")[1] ?? "").split(".").every((label) => label.length <= 63),
        "at most 63 characters between dots after the @",
      ),
  )
  .min(1, "add at least one recipient")
  .max(MAX_EMAIL_RECIPIENTS, `at most ${MAX_EMAIL_RECIPIENTS} recipients`)
  .transform((list) => [...new Set(list.map((address) => address.toLowerCase()))]);

/** A figure that explains the event: a threshold that failed, a metric that regressed. */
export const ZNotificationFigure = z.object({
  metric: z.string(),
  label: z.string(),
  unit: z.string(),
  value: z.number().nullable(),
  /** The threshold's limit or the baseline's value, when there is one. */
  expected: z.number().nullable().optional(),
  /** `(value − expected) / expected`, a fraction. */
  delta: z.number().nullable().optional(),
  /** How the figure reads, e.g. "Latency p99 ≤ 50 ms failed: 73 ms". */
  text: z.string(),
});
export type TNotificationFigure = z.infer<typeof ZNotificationFigure>;

export const ZNotificationLink = z.object({ label: z.string(), url: z.string() });

/** The data every channel renders, and the `data` of a signed webhook. */
export const ZNotificationData = z.object({
  title: z.string(),
  /**
   * One word for the outcome: failed, invalid, regressed, changed, offline, test; started, and
   * a finished run's status (succeeded, failed, canceled).
   */
  verdict: z.string(),
  summary: z.string(),
  organization: z.string(),
  run: z
    .object({
      id: z.string(),
      number: z.number(),
      project: z.string(),
      scenario: z.string(),
      branch: z.string().nullable(),
      commit: z.string().nullable(),
      status: z.string(),
    })
    .nullable()
    .optional(),
  figures: z.array(ZNotificationFigure).default([]),
  links: z.array(ZNotificationLink).default([]),
  /** Worker or agent, for offline events. */
  subject: z.object({ id: z.string(), name: z.string(), lastSeenAt: z.string() }).nullable().optional(),
});
export type TNotificationData = z.infer<typeof ZNotificationData>;

export interface NotificationEnvelope {
  /** The event id: the same `webhook-id` on every attempt, so receivers can drop repeats. */
  id: string;
  kind: string;
  occurredAt: Date;
  data: TNotificationData;
}

/** A figure for a metric with its unit, the value it was held against and the Δ between them. */
export function notificationFigure(
  metric: string,
  value: number | null,
  expected: number | null,
  text: (f: { label: string; value: string; expected: string; delta: string }) => string,
): TNotificationFigure {
  const def = metricDef(metric);
  const delta = value !== null && expected !== null && expected !== 0 ? (value - expected) / expected : null;
  return {
    metric,
    label: def.label,
    unit: def.unit,
    value,
    expected,
    delta,
    text: text({
      label: def.label,
      value: formatMetric(metric, value),
      expected: formatMetric(metric, expected),
      delta: formatDeltaPct(delta),
    }),
  };
}

/** The body of a Standard Webhooks delivery: `{ type, timestamp, data }`. */
export function webhookBody(event: NotificationEnvelope): string {
  return JSON.stringify({ type: event.kind, timestamp: event.occurredAt.toISOString(), data: event.data });
}

const VERDICT_EMOJI: Record<string, string> = {
  failed: ":red_circle:",
  invalid: ":warning:",
  regressed: ":chart_with_downwards_trend:",
  changed: ":bar_chart:",
  offline: ":electric_plug:",
  test: ":white_check_mark:",
  started: ":arrow_forward:",
  succeeded: ":large_green_circle:",
  canceled: ":black_square_for_stop:",
};

/** Slack mrkdwn treats &, < and > as markup; everything from a tenant is escaped. */
function slackEscape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Slack's limits: a section's text at most 3,000 characters, at most 50 blocks. */
function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * A Slack incoming-webhook message in Block Kit: a header with the verdict, the summary, the
 * figures that explain it (units and Δ %), the run's context and buttons to the run and the
 * comparison. `text` is the notification fallback Slack requires.
 */
export function slackMessage(event: NotificationEnvelope) {
  const { data } = event;
  const emoji = VERDICT_EMOJI[data.verdict] ?? ":bell:";
  const blocks: Record<string, unknown>[] = [
    { type: "header", text: { type: "plain_text", text: clip(data.title, 150), emoji: true } },
    {
      type: "section",
      text: {
        type: "mrkdwn",
        text: clip(`${emoji} *${slackEscape(data.verdict.toUpperCase())}* — ${slackEscape(data.summary)}`, 3000),
      },
    },
  ];
  if (data.figures.length) {
    blocks.push({
      type: "section",
      text: {
        type: "mrkdwn",
        text: clip(data.figures.map((f) => `• ${slackEscape(f.text)}`).join("\n"), 3000),
      },
    });
  }
  const context: string[] = [`*${slackEscape(data.organization)}*`];
  if (data.run) {
    context.push(`${slackEscape(data.run.project)} / ${slackEscape(data.run.scenario)} · run #${data.run.number}`);
    if (data.run.branch) context.push(`branch \`${slackEscape(data.run.branch)}\``);
    if (data.run.commit) context.push(`commit \`${slackEscape(data.run.commit.slice(0, 12))}\``);
  }
  if (data.subject) context.push(`${slackEscape(data.subject.name)} · last seen ${data.subject.lastSeenAt}`);
  blocks.push({ type: "context", elements: [{ type: "mrkdwn", text: clip(context.join("  ·  "), 3000) }] });
  const buttons = data.links
    .filter((l) => /^https?:\/\//.test(l.url))
    .slice(0, 5)
    .map((l, i) => ({
      type: "button",
      text: { type: "plain_text", text: clip(l.label, 75), emoji: false },
      url: l.url.slice(0, 3000),
      action_id: `link-${i}`,
    }));
  if (buttons.length) blocks.push({ type: "actions", elements: buttons });
  return { text: clip(slackEscape(`${data.title}: ${data.summary}`), 3000), blocks };
}

/**
 * A Microsoft Teams message for an incoming webhook (a Workflows "post to a channel when a
 * webhook request is received" flow or a legacy connector): one Adaptive Card.
 */
export function teamsMessage(event: NotificationEnvelope) {
  const { data } = event;
  const body: Record<string, unknown>[] = [
    { type: "TextBlock", size: "Large", weight: "Bolder", text: data.title, wrap: true },
    {
      type: "TextBlock",
      text: `**${data.verdict.toUpperCase()}** — ${data.summary}`,
      wrap: true,
      color: data.verdict === "test" ? "Good" : "Attention",
    },
  ];
  if (data.figures.length) {
    body.push({
      type: "FactSet",
      facts: data.figures.map((f) => ({ title: f.label, value: f.text })),
    });
  }
  const context = [data.organization];
  if (data.run) {
    context.push(`${data.run.project} / ${data.run.scenario} · run #${data.run.number}`);
    if (data.run.branch) context.push(`branch ${data.run.branch}`);
  }
  if (data.subject) context.push(`${data.subject.name} · last seen ${data.subject.lastSeenAt}`);
  body.push({ type: "TextBlock", text: context.join(" · "), isSubtle: true, wrap: true, size: "Small" });
  return {
    type: "message",
    attachments: [
      {
        contentType: "application/vnd.microsoft.card.adaptive",
        contentUrl: null,
        content: {
          $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
          type: "AdaptiveCard",
          version: "1.4",
          body,
          actions: data.links
            .filter((l) => /^https?:\/\//.test(l.url))
            .slice(0, 5)
            .map((l) => ({ type: "Action.OpenUrl", title: l.label, url: l.url })),
        },
      },
    ],
  };
}

/** Header values never carry a line break from a tenant's text (a header injection). */
function oneLine(text: string, max: number): string {
  return clip(text.replace(/[\r\n\t\u2028\u2029]+/g, " ").trim(), max);
}

/**
 * A notification as a plain-text email: the title as the subject, then the verdict and summary,
 * the figures, the run's context and the links. Plain text only: nothing from a tenant is ever
 * read as markup.
 */
export function emailMessage(event: NotificationEnvelope): { subject: string; text: string } {
  const { data } = event;
  const lines = [`${data.verdict.toUpperCase()}: ${data.summary}`, ""];
  if (data.figures.length) {
    for (const f of data.figures) lines.push(`  - ${f.text}`);
    lines.push("");
  }
  const context = [data.organization];
  if (data.run) {
    context.push(`${data.run.project} / ${data.run.scenario}, run #${data.run.number}`);
    if (data.run.branch) context.push(`branch ${data.run.branch}`);
    if (data.run.commit) context.push(`commit ${data.run.commit.slice(0, 12)}`);
  }
  if (data.subject) context.push(`${data.subject.name}, last seen ${data.subject.lastSeenAt}`);
  lines.push(context.join(" · "));
  const links = data.links.filter((l) => /^https?:\/\//.test(l.url)).slice(0, 5);
  if (links.length) {
    lines.push("");
    for (const l of links) lines.push(`${l.label}: ${l.url}`);
  }
  lines.push(
    "",
    `Event ${event.id} (${event.kind}). Sent by Benchboard: the rule and this address are in Settings → Notifications.`,
  );
  return { subject: oneLine(`[Benchboard] ${data.title}`, 200), text: lines.join("\n") };
}

/** The request body for a channel. */
export function channelBody(channel: HttpNotificationChannel, event: NotificationEnvelope): string {
  if (channel === "slack") return JSON.stringify(slackMessage(event));
  if (channel === "teams") return JSON.stringify(teamsMessage(event));
  return webhookBody(event);
}

/**
 * "2xx", "4xx", …: all of a receiver's answer a tenant is shown. The exact status and the size
 * of the answer together fingerprint whatever answered, so only the install's own organization
 * sees them.
 */
export function statusClass(status: number | null | undefined): string | null {
  if (status === null || status === undefined || !Number.isInteger(status) || status < 100 || status > 599) return null;
  return `${Math.floor(status / 100)}xx`;
}

/** Delay before attempt `attempt + 1` (attempt counts from 1): base, 2×, 4×, … capped. */
export function retryDelayMs(attempt: number, baseMs: number, capMs = 60 * 60_000): number {
  return Math.min(capMs, baseMs * 2 ** Math.max(0, attempt - 1));
}

/** A rule's scope: the whole organization, one project, or one scenario. */
export function ruleMatches(
  rule: { events: readonly string[]; projectId: string | null; scenarioId: string | null; enabled: boolean },
  kind: string,
  scope: { projectId: string | null; scenarioId: string | null },
): boolean {
  if (!rule.enabled || !rule.events.includes(kind)) return false;
  if (rule.projectId && rule.projectId !== scope.projectId) return false;
  if (rule.scenarioId && rule.scenarioId !== scope.scenarioId) return false;
  return true;
}
