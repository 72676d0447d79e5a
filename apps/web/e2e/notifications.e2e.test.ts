import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { createCaller } from "@benchboard/api";
import { blockKitHtml } from "@benchboard/core";
import { setProjectThresholds } from "@benchboard/db";
import { createRunsQueue, DEFAULT_REDIS_URL } from "@benchboard/jobs";
import type { Queue } from "bullmq";
import MarkdownIt from "markdown-it";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, screenshotsDir, startStack } from "./harness";

// Settings → Notifications in a browser against the built app and a real worker: endpoints made
// from the form (the signing secret shown once), a rule, "send test", a run that fails its
// threshold, and the delivery log with a delivered and a retrying delivery. Then what a Slack
// channel shows for the payload the Slack-shaped receiver got, and the pull-request comment.
let stack: Stack;
let queue: Queue;
const received: { path: string; body: string; headers: http.IncomingHttpHeaders }[] = [];
let receiverUrl = "";
let projectId = "";

beforeAll(async () => {
  stack = await startStack();
  queue = createRunsQueue(process.env.REDIS_URL ?? DEFAULT_REDIS_URL, `bbe2e-n-${randomBytes(4).toString("hex")}`);
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ path: req.url ?? "", body: Buffer.concat(chunks).toString("utf8"), headers: req.headers });
      res.writeHead(req.url === "/broken" ? 500 : 200).end("receiver-private-answer");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  stack.close = ((close) => async () => {
    server.close();
    await queue.close();
    await close();
  })(stack.close);
});

afterAll(async () => {
  await stack?.close();
});

async function waitFor<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  ms: number,
  what: string,
) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const v = await check();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}\n${stack.logs.slice(-30).join("")}`);
}

describe("notification settings", () => {
  it("adds endpoints and a rule, sends a test, and shows the delivery log", async () => {
    const { page, baseUrl } = stack;
    await page.goto(`${baseUrl}/settings/notifications`);
    const card = page.getByRole("region", { name: "Notifications" });
    await card.getByText("No endpoints").waitFor();

    const add = async (name: string, channel: string, url: string) => {
      await card.getByLabel("Name", { exact: true }).fill(name);
      await card.getByLabel("Channel").selectOption(channel);
      await card.getByLabel("Receiver URL").fill(url);
      await card.getByRole("button", { name: "Add endpoint" }).click();
      await card
        .getByRole("table", { name: "Notification endpoints" })
        .getByRole("cell", { name, exact: true })
        .waitFor()
        .catch(async (err: Error) => {
          throw new Error(`${err.message}\ncard: ${await card.textContent()}\n${stack.logs.slice(-20).join("")}`);
        });
    };
    await add("ci-hook", "webhook", `${receiverUrl}/hook`);
    const secret = (await card.getByLabel("Signing secret").textContent()) ?? "";
    expect(secret).toMatch(/^whsec_/);
    await add("#perf-alerts", "slack", `${receiverUrl}/services/T0/B0/x`);
    await add("broken receiver", "webhook", `${receiverUrl}/broken`);

    // A private address the operator did not allow is refused at the field.
    await card.getByLabel("Name", { exact: true }).fill("internal");
    await card.getByLabel("Receiver URL").fill("http://10.1.2.3/hook");
    await card.getByRole("button", { name: "Add endpoint" }).click();
    await expect(card.getByRole("alert").filter({ hasText: "10.1.2.3" }).first().textContent()).resolves.toMatch(
      /operator/,
    );

    await card.getByLabel("Rule name").fill("Thresholds everywhere");
    const sendTo = card.getByRole("group", { name: "Send to" });
    for (const name of ["ci-hook", "#perf-alerts", "broken receiver"]) await sendTo.getByLabel(name).check();
    await card.getByRole("button", { name: "Add rule" }).click();
    await card.getByRole("table", { name: "Notification rules" }).getByText("Thresholds everywhere").waitFor();

    const endpoints = card.getByRole("table", { name: "Notification endpoints" });
    await endpoints
      .getByRole("row", { name: /ci-hook/ })
      .getByRole("button", { name: "Send test" })
      .click();
    await waitFor(() => received.find((r) => r.path === "/hook"), 30_000, "the test delivery");
    const test = received.find((r) => r.path === "/hook")!;
    expect((new Webhook(secret).verify(test.body, test.headers as never) as { type: string }).type).toBe(
      "notification.test",
    );

    // A run that fails its threshold: each endpoint of the rule gets one delivery.
    const db = stack.db.db;
    const org = await db.organization.findUniqueOrThrow({ where: { slug: "local" } });
    const caller = createCaller({ db, queue, orgId: org.id, userId: stack.user.id, role: "owner" });
    const project = await caller.project.create({ name: "Checkout API" });
    projectId = project.id;
    await setProjectThresholds(db, org.id, project.id, [
      { metric: "latency_p99", op: "<=", value: 50 },
      { metric: "rps", op: ">=", value: 500 },
    ]);
    await caller.upload.run({
      project: project.id,
      scenario: "checkout 500 rps",
      format: "native",
      branch: "main",
      commit: "4f2c9e1a7b3d",
      content: JSON.stringify({
        schemaVersion: 1,
        startedAt: "2026-11-26T06:00:00Z",
        endedAt: "2026-11-26T06:01:00Z",
        result: {
          metrics: { requests: 30000, success: 29990, failed: 10, rps: 430, latency_p50: 26, latency_p99: 71 },
        },
      }),
    });
    const slack = await waitFor(
      () => received.find((r) => r.path.startsWith("/services/")),
      30_000,
      "the Slack message",
    );
    await waitFor(() => received.filter((r) => r.path === "/hook").length === 2, 30_000, "the threshold webhook");
    await waitFor(() => received.find((r) => r.path === "/broken"), 30_000, "the failing attempt");

    await page.reload();
    const log = card.getByRole("table", { name: "Delivery log" });
    await log.getByText("pending").first().waitFor({ timeout: 15_000 });
    await expect(log.textContent()).resolves.toMatch(/delivered/);
    await expect(log.textContent()).resolves.toMatch(/HTTP 500/);
    expect(await log.textContent()).not.toContain("receiver-private-answer");
    // The page scrolls inside its main area, so the window is made tall enough for the whole card.
    await page.reload();
    await log.getByText("pending").first().waitFor({ timeout: 15_000 });
    const box = await card.boundingBox();
    await page.setViewportSize({ width: 1440, height: Math.ceil((box?.y ?? 0) + (box?.height ?? 1000)) + 40 });
    await card.screenshot({ path: path.join(screenshotsDir, "notifications-settings.png") });
    await page.setViewportSize({ width: 1440, height: 1000 });

    // Every attempt stays in the log: the failing receiver's delivery lists each one.
    const brokenEndpoint = await db.notificationEndpoint.findFirstOrThrow({ where: { name: "broken receiver" } });
    await waitFor(
      async () =>
        (await db.notificationDeliveryAttempt.count({ where: { delivery: { endpointId: brokenEndpoint.id } } })) >= 2,
      60_000,
      "a second attempt to the failing receiver",
    );
    await page.reload();
    const brokenRow = log.getByRole("row", { name: /broken receiver/ }).first();
    await brokenRow.locator("summary").click();
    const attempts = brokenRow.getByRole("list", { name: "Attempts" });
    await attempts.waitFor();
    const items = await attempts.getByRole("listitem").allTextContents();
    expect(items.length).toBeGreaterThanOrEqual(2);
    expect(items[0]).toMatch(/#1 .*failed, retried.*500/);
    expect(items[1]).toMatch(/#2 /);
    expect(items.join(" ")).not.toContain("receiver-private-answer");
    await log.screenshot({ path: path.join(screenshotsDir, "notification-attempts.png") });

    // What the Slack channel shows, drawn from the payload the receiver got.
    const preview = await stack.browser.newPage({ viewport: { width: 820, height: 420 } });
    await preview.setContent(blockKitHtml(JSON.parse(slack.body)));
    const message = preview.getByRole("article", { name: "Slack message" });
    await expect(message.textContent()).resolves.toMatch(
      /Latency p99 <= 50 ms failed: 71 ms \(\+42\.0% against the limit\)/,
    );
    await expect(message.textContent()).resolves.toMatch(/Achieved rate >= 500 req\/s failed: 430 req\/s \(−14\.0%/);
    await message.screenshot({ path: path.join(screenshotsDir, "slack-message.png") });
    await preview.close();
  }, 180_000);

  it("a status badge answers 404 until an owner makes the project's badges public", async () => {
    const { page, baseUrl } = stack;
    const badgeUrl = `${baseUrl}/api/v1/badge/${projectId}/${encodeURIComponent("checkout 500 rps")}/latency_p99.svg`;
    expect((await fetch(badgeUrl)).status).toBe(404);
    await page.goto(`${baseUrl}/projects/${projectId}`);
    const card = page.getByRole("region", { name: "Status badges" });
    await card.getByRole("button", { name: "Make badges public" }).click();
    await card.getByRole("button", { name: "Make badges private" }).waitFor();
    const res = await fetch(badgeUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^image\/svg\+xml/);
    expect(res.headers.get("cache-control")).toMatch(/^public, max-age=300/);
    const svg = await res.text();
    expect(svg).toContain("71 ms · failing");
    expect(svg).toContain('role="img"');
    expect((await fetch(badgeUrl, { method: "POST" })).status).toBe(405);
  });

  it("the pull-request comment reads as GitHub renders Markdown", async () => {
    // Written by the compare --github integration test (packages/api) from the real command.
    const file = path.join(screenshotsDir, "pr-comment.md");
    if (!existsSync(file)) throw new Error("run packages/api/src/rest/github-pr.integration.test.ts first");
    const markdown = readFileSync(file, "utf8");
    const html = new MarkdownIt({ html: true, linkify: true }).render(markdown);
    const page = await stack.browser.newPage({ viewport: { width: 900, height: 600 } });
    await page.setContent(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Pull request comment</title><style>
      body{font-family:-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;font-size:14px;color:#1f2328;padding:16px}
      .box{border:1px solid #d1d9e0;border-radius:6px;max-width:840px}.hd{background:#f6f8fa;border-bottom:1px solid #d1d9e0;padding:8px 16px;font-size:13px}
      .bd{padding:8px 16px}table{border-collapse:collapse}th,td{border:1px solid #d1d9e0;padding:4px 12px}th{background:#f6f8fa}
      h2{font-size:1.4em;border-bottom:1px solid #d1d9e0;padding-bottom:.3em}a{color:#0969da;text-decoration:none}
    </style></head><body><div class="box" role="article" aria-label="Pull request comment"><div class="hd"><b>benchboard</b> commented</div><div class="bd">${html}</div></div></body></html>`);
    const comment = page.getByRole("article", { name: "Pull request comment" });
    await expect(comment.getByRole("table").textContent()).resolves.toMatch(/Latency p99\s*45 ms\s*71 ms\s*\+57\.8%/);
    // The hidden marker stays hidden.
    expect(await comment.textContent()).not.toContain("benchboard:compare");
    await comment.screenshot({ path: path.join(screenshotsDir, "pr-comment.png") });
    await page.close();
  });

  it("a gate that could not judge says so in its pull-request comment, with no check mark for the verdict", async () => {
    // Written by the compare --github integration test (packages/api) from the real command.
    const file = path.join(screenshotsDir, "pr-comment-inconclusive.md");
    if (!existsSync(file)) throw new Error("run packages/api/src/rest/github-pr.integration.test.ts first");
    const html = new MarkdownIt({ html: true, linkify: true }).render(readFileSync(file, "utf8"));
    const page = await stack.browser.newPage({ viewport: { width: 900, height: 600 } });
    await page.setContent(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Pull request comment</title><style>
      body{font-family:-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;font-size:14px;color:#1f2328;padding:16px}
      .box{border:1px solid #d1d9e0;border-radius:6px;max-width:840px}.hd{background:#f6f8fa;border-bottom:1px solid #d1d9e0;padding:8px 16px;font-size:13px}
      .bd{padding:8px 16px}table{border-collapse:collapse}th,td{border:1px solid #d1d9e0;padding:4px 12px}th{background:#f6f8fa}
      h2{font-size:1.4em;border-bottom:1px solid #d1d9e0;padding-bottom:.3em}a{color:#0969da;text-decoration:none}
    </style></head><body><div class="box" role="article" aria-label="Pull request comment"><div class="hd"><b>benchboard</b> commented</div><div class="bd">${html}</div></div></body></html>`);
    const comment = page.getByRole("article", { name: "Pull request comment" });
    const heading = await comment.getByRole("heading", { level: 2 }).textContent();
    expect(heading).toMatch(/inconclusive/);
    expect(heading).not.toContain("✅");
    await expect(comment.textContent()).resolves.toMatch(/Why the gate could not judge/);
    await comment.screenshot({ path: path.join(screenshotsDir, "pr-comment-inconclusive.png") });
    await page.close();
  });
});
