import { describe, expect, it } from "vitest";
import { blockKitHtml } from "./block-kit-html";
import {
  channelBody,
  type NotificationEnvelope,
  notificationFigure,
  retryDelayMs,
  ruleMatches,
  slackMessage,
  teamsMessage,
  webhookBody,
  ZEmailRecipients,
} from "./notifications";

const event: NotificationEnvelope = {
  id: "evt_1",
  kind: "thresholds.failed",
  occurredAt: new Date("2026-11-26T06:00:00Z"),
  data: {
    title: "Gateway / <script> #3 failed 1 threshold",
    verdict: "failed",
    summary: "outside the limit: Latency p99",
    organization: "Acme & Co",
    run: {
      id: "r1",
      number: 3,
      project: "Gateway",
      scenario: "<script>",
      branch: "main",
      commit: "abc",
      status: "succeeded",
    },
    figures: [
      notificationFigure("latency_p99", 73, 50, (f) => `${f.label} <= ${f.expected} failed: ${f.value} (${f.delta})`),
    ],
    links: [
      { label: "Open the run", url: "https://bench.example.test/runs/r1" },
      { label: "Not a web link", url: "javascript:alert(1)" },
    ],
  },
};

describe("notification messages", () => {
  it("a figure carries its unit, the value it was held against and the Δ", () => {
    expect(event.data.figures[0]).toMatchObject({
      unit: "ms",
      value: 73,
      expected: 50,
      text: "Latency p99 <= 50 ms failed: 73 ms (+46.0%)",
    });
    expect(event.data.figures[0]!.delta).toBeCloseTo(0.46);
  });

  it("the webhook body is { type, timestamp, data }", () => {
    expect(JSON.parse(webhookBody(event))).toEqual({
      type: "thresholds.failed",
      timestamp: "2026-11-26T06:00:00.000Z",
      data: JSON.parse(JSON.stringify(event.data)),
    });
    expect(channelBody("webhook", event)).toBe(webhookBody(event));
  });

  it("Slack text from tenants is escaped and only web links become buttons", () => {
    const msg = slackMessage(event);
    // mrkdwn reads <…> as links and mentions; plain_text (the header) shows text as it is.
    const mrkdwn = [msg.text, ...JSON.stringify(msg.blocks).match(/"type":"mrkdwn","text":"[^"]*"/g)!];
    expect(mrkdwn.join("\n")).not.toMatch(/[<>]/);
    const text = JSON.stringify(msg);
    expect(text).toContain("&lt;script&gt;");
    expect(text).toContain("Acme &amp; Co");
    const actions = msg.blocks.find((b) => b.type === "actions") as { elements: { url: string }[] };
    expect(actions.elements.map((e) => e.url)).toEqual(["https://bench.example.test/runs/r1"]);
  });

  it("Teams gets one Adaptive Card with the figures as facts and link actions", () => {
    const msg = teamsMessage(event);
    expect(msg.type).toBe("message");
    expect(msg.attachments).toHaveLength(1);
    const card = msg.attachments[0]!.content;
    expect(card.type).toBe("AdaptiveCard");
    expect(card.body.find((b) => b.type === "FactSet")).toEqual({
      type: "FactSet",
      facts: [{ title: "Latency p99", value: "Latency p99 <= 50 ms failed: 73 ms (+46.0%)" }],
    });
    expect(card.actions).toEqual([
      { type: "Action.OpenUrl", title: "Open the run", url: "https://bench.example.test/runs/r1" },
    ]);
  });

  it("the Slack preview draws the message without letting markup through", () => {
    const html = blockKitHtml(slackMessage(event));
    expect(html).not.toContain("<script>");
    expect(html).toContain("&lt;script&gt;");
    expect(html).toContain("<b>FAILED</b>");
  });
});

describe("delivery rules", () => {
  it("retries wait base, 2×, 4×, … up to the cap", () => {
    expect([1, 2, 3, 4].map((a) => retryDelayMs(a, 10_000))).toEqual([10_000, 20_000, 40_000, 80_000]);
    expect(retryDelayMs(30, 10_000)).toBe(3_600_000);
  });

  it("a rule matches its events within its scope only", () => {
    const rule = { events: ["run.failed"], projectId: "p1", scenarioId: null, enabled: true };
    expect(ruleMatches(rule, "run.failed", { projectId: "p1", scenarioId: "s1" })).toBe(true);
    expect(ruleMatches(rule, "run.failed", { projectId: "p2", scenarioId: null })).toBe(false);
    expect(ruleMatches(rule, "run.invalid", { projectId: "p1", scenarioId: null })).toBe(false);
    expect(ruleMatches({ ...rule, enabled: false }, "run.failed", { projectId: "p1", scenarioId: null })).toBe(false);
  });
});

describe("email recipients", () => {
  it("keep to the limits mail servers enforce, naming which one an address breaks", () => {
    expect(ZEmailRecipients.parse(["Perf-Team@Example.com", "perf-team@example.com"])).toEqual([
      "perf-team@example.com",
    ]);
    const long = ZEmailRecipients.safeParse([`${"a".repeat(65)}@example.com`]);
    expect(long.success).toBe(false);
    expect(long.error?.issues[0]?.message).toBe("at most 64 characters before the @");
    const label = ZEmailRecipients.safeParse([`ops@${"b".repeat(64)}.example.com`]);
    expect(label.success).toBe(false);
    expect(label.error?.issues[0]?.message).toBe("at most 63 characters between dots after the @");
    expect(ZEmailRecipients.safeParse([`${"a".repeat(64)}@example.com`]).success).toBe(true);
  });
});
