import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { TCompareResult } from "./api-types";
import { commentMarker, type GitHubContext, publishToGitHub } from "./github";

// The pull-request comment finder against a small server on 127.0.0.1 standing in for GitHub's
// REST API (the routes `compare --github` uses): it edits only a comment its own token wrote.
// `GET /user` answers like GitHub: the token's user for a personal token, 403 for an app's
// installation token (Actions' GITHUB_TOKEN).

interface Comment {
  id: number;
  body: string;
  user: { id: number; login: string; type: "User" | "Bot" };
}

const TOKEN_USER = { id: 7001, login: "bench-ci", type: "User" as const };
const PERSON = { id: 4242, login: "a-person", type: "User" as const };
const ACTIONS_BOT = { id: 41898282, login: "github-actions[bot]", type: "Bot" as const };

let server: http.Server;
let apiUrl = "";
let tokenKind: "personal" | "app" = "personal";
let comments: Comment[] = [];
const writes: { method: string; path: string; body: { body?: string } }[] = [];
let nextId = 500;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = new URL(req.url ?? "/", "http://x").pathname;
      const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : {};
      const send = (status: number, data: unknown) =>
        res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(data));
      if (req.method === "GET" && path === "/user") {
        if (tokenKind === "app") return send(403, { message: "Resource not accessible by integration" });
        return send(200, TOKEN_USER);
      }
      if (req.method === "GET" && path === "/repos/acme/shop/issues/5/comments") return send(200, comments);
      const edit = /^\/repos\/acme\/shop\/issues\/comments\/(\d+)$/.exec(path);
      if (req.method === "PATCH" && edit) {
        writes.push({ method: "PATCH", path, body });
        const comment = comments.find((c) => c.id === Number(edit[1]));
        if (!comment) return send(404, { message: "Not Found" });
        comment.body = body.body;
        return send(200, comment);
      }
      if (req.method === "POST" && path === "/repos/acme/shop/issues/5/comments") {
        writes.push({ method: "POST", path, body });
        const user = tokenKind === "app" ? ACTIONS_BOT : TOKEN_USER;
        const created = { id: nextId++, body: body.body, user };
        comments.push(created);
        return send(201, created);
      }
      send(404, { message: "Not Found" });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server?.closeAllConnections();
  server?.close();
});

beforeEach(() => {
  writes.length = 0;
  comments = [];
});

const runSummary = (number: number, branch: string) => ({
  id: `run${number}`,
  number,
  url: `https://bench.example.com/runs/run${number}`,
  status: "succeeded" as const,
  scenario: { id: null, name: "checkout" },
  git: { branch, commit: "0123456789abcdef", ciUrl: null },
  project: { id: "p", slug: "shop", name: "Shop" },
});

const result: TCompareResult = {
  base: runSummary(10, "main"),
  head: runSummary(12, "feature"),
  tolerancePct: 5,
  metrics: [{ key: "rps", label: "Achieved rate", base: 1000, head: 1001, delta: 0.001, verdict: "unchanged" }],
  regressed: [],
  improved: [],
  thresholds: { passed: true, verdicts: [], tool: [] },
  passed: true,
  reasons: [],
};
const marker = commentMarker(result);

const context = (): GitHubContext => ({
  apiUrl,
  token: "test-token",
  owner: "acme",
  repo: "shop",
  pullNumber: 5,
  headSha: null,
  fork: false,
  eventName: "pull_request",
  workflowPath: null,
});

describe("the pull-request comment finder", () => {
  it("edits the comment its own token wrote, never a person's comment holding the marker", async () => {
    tokenKind = "personal";
    const quote = `> ${marker}\n> ## ✅ Benchboard: no regression\n\nWhy did p99 move on Friday?`;
    const copied = `${marker}\nI pasted the old table here to discuss it.`;
    comments = [
      { id: 1, body: quote, user: PERSON },
      { id: 2, body: copied, user: PERSON },
      { id: 3, body: `${marker}\n## old comparison`, user: TOKEN_USER },
    ];
    const outcome = await publishToGitHub(context(), result, "## ✅ Benchboard: no regression");
    expect(outcome).toMatchObject({ comment: "updated", commentId: 3, fallback: null });
    expect(writes.map((w) => `${w.method} ${w.path}`)).toEqual(["PATCH /repos/acme/shop/issues/comments/3"]);
    expect(comments.find((c) => c.id === 1)!.body).toBe(quote);
    expect(comments.find((c) => c.id === 2)!.body).toBe(copied);
    expect(comments.find((c) => c.id === 3)!.body).toContain("## ✅ Benchboard: no regression");
  });

  it("writes a new comment when the only ones holding the marker are a person's", async () => {
    tokenKind = "personal";
    const copied = `${marker}\nsee above`;
    comments = [{ id: 9, body: copied, user: PERSON }];
    const outcome = await publishToGitHub(context(), result, "## ✅ Benchboard: no regression");
    expect(outcome).toMatchObject({ comment: "created", fallback: null });
    expect(writes.map((w) => w.method)).toEqual(["POST"]);
    expect(comments.find((c) => c.id === 9)!.body).toBe(copied);
    expect(comments.at(-1)!.user.id).toBe(TOKEN_USER.id);

    // The next run finds the comment it wrote and edits it in place.
    writes.length = 0;
    const again = await publishToGitHub(context(), result, "## ✅ Benchboard: still no regression");
    expect(again).toMatchObject({ comment: "updated", commentId: outcome.commentId });
    expect(writes.map((w) => w.method)).toEqual(["PATCH"]);
    expect(comments.find((c) => c.id === 9)!.body).toBe(copied);
  });

  it("with an installation token (GitHub Actions), edits the bot's comment and not a person's", async () => {
    tokenKind = "app";
    const copied = `${marker}\nquoting the bot`;
    comments = [
      { id: 20, body: copied, user: PERSON },
      { id: 21, body: `${marker}\n## old`, user: ACTIONS_BOT },
    ];
    const outcome = await publishToGitHub(context(), result, "## ✅ Benchboard: no regression");
    expect(outcome).toMatchObject({ comment: "updated", commentId: 21 });
    expect(writes.map((w) => `${w.method} ${w.path}`)).toEqual(["PATCH /repos/acme/shop/issues/comments/21"]);
    expect(comments.find((c) => c.id === 20)!.body).toBe(copied);
  });
});

describe("GitHub that does not answer", () => {
  it("is given up after the budget, with a warning naming the step, not an error", async () => {
    // Accepts the connection and never answers.
    const silent = http.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    try {
      const started = Date.now();
      const outcome = await publishToGitHub({ ...context(), apiUrl: url }, result, "## ✅ Benchboard: no regression", {
        budgetMs: 500,
      });
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(outcome).toMatchObject({ comment: null, checkRunId: null, fallback: null });
      expect(outcome.warning).toBe(
        `could not reach GitHub at ${url} (no answer within 0.5 s) while reading the pull request's comments`,
      );
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });
});
