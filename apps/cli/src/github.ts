import { readFileSync } from "node:fs";
import { formatMetric, metricDef } from "@benchboard/core";
import { Octokit } from "@octokit/core";
import { compareOutcome, type TCompareOutcome, type TCompareResult, type TRun, type TThresholds } from "./api-types";
import { runIdentityText, runName, verdictStatus } from "./summary";

/**
 * `compare --github`: the comparison on the pull request itself — one comment per scenario,
 * created once and then edited in place (a hidden marker finds it), and a check run with the
 * verdict and an annotation per failed threshold. Everything comes from the Actions environment:
 * GITHUB_TOKEN, GITHUB_REPOSITORY, the event payload (GITHUB_EVENT_PATH) and GITHUB_API_URL (so
 * GitHub Enterprise Server works).
 */

type Env = Readonly<Record<string, string | undefined>>;

export interface GitHubContext {
  apiUrl: string;
  token: string | null;
  owner: string;
  repo: string;
  /** The pull request's number, or null outside a pull request. */
  pullNumber: number | null;
  headSha: string | null;
  /** A pull request from a fork: Actions gives its `pull_request` runs a read-only token. */
  fork: boolean;
  eventName: string;
  /** The workflow file: where check-run annotations point (a path in the repository). */
  workflowPath: string | null;
}

interface PullRequestEvent {
  pull_request?: {
    number?: number;
    head?: { sha?: string; repo?: { full_name?: string; fork?: boolean } | null };
    base?: { repo?: { full_name?: string } };
  };
  repository?: { full_name?: string };
}

/** What the Actions environment says, or why `--github` cannot work here. */
export function githubContext(env: Env): GitHubContext | { error: string } {
  const repository = env.GITHUB_REPOSITORY?.trim() ?? "";
  const [owner, repo, ...rest] = repository.split("/");
  if (!owner || !repo || rest.length) {
    return { error: "--github needs GITHUB_REPOSITORY (owner/name), as GitHub Actions sets it" };
  }
  let event: PullRequestEvent = {};
  if (env.GITHUB_EVENT_PATH) {
    try {
      event = JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, "utf8")) as PullRequestEvent;
    } catch (err) {
      return { error: `could not read the event payload GITHUB_EVENT_PATH: ${(err as Error).message}` };
    }
  }
  const pr = event.pull_request;
  const headRepo = pr?.head?.repo?.full_name;
  const baseRepo = pr?.base?.repo?.full_name ?? event.repository?.full_name ?? repository;
  const workflowRef = env.GITHUB_WORKFLOW_REF ?? "";
  // owner/repo/.github/workflows/bench.yml@refs/heads/main
  const workflowPath = /^[^/]+\/[^/]+\/(.+?)@/.exec(workflowRef)?.[1] ?? null;
  return {
    apiUrl: (env.GITHUB_API_URL?.trim() || "https://api.github.com").replace(/\/+$/, ""),
    token: env.GITHUB_TOKEN?.trim() || null,
    owner,
    repo,
    pullNumber: typeof pr?.number === "number" ? pr.number : null,
    headSha: pr?.head?.sha ?? env.GITHUB_SHA ?? null,
    fork: pr ? pr.head?.repo?.fork === true || (headRepo !== undefined && headRepo !== baseRepo) : false,
    eventName: env.GITHUB_EVENT_NAME ?? "",
    workflowPath,
  };
}

/**
 * What `--github` writes, whatever judged it: a comparison against a baseline, or the head run on
 * its own when the baseline branch has no run yet (then `base` is null).
 */
export interface GateReport {
  head: Pick<TRun, "id" | "number" | "url" | "project" | "scenario" | "title">;
  base: Pick<TRun, "id" | "number" | "url"> | null;
  outcome: TCompareOutcome;
  reasons: readonly string[];
  inconclusiveReasons: readonly string[];
  thresholds: TThresholds | null;
}

export function compareReport(result: TCompareResult): GateReport {
  return {
    head: result.head,
    base: result.base,
    outcome: compareOutcome(result),
    reasons: result.reasons,
    inconclusiveReasons: result.inconclusiveReasons ?? [],
    thresholds: result.thresholds,
  };
}

function asReport(input: GateReport | TCompareResult): GateReport {
  return "metrics" in input ? compareReport(input) : input;
}

/** The hidden marker that finds this scenario's comment again. */
export function commentMarker(result: Pick<GateReport, "head">): string {
  const key = `${result.head.project.slug}/${result.head.scenario.name}`.replace(/--/g, "-");
  return `<!-- benchboard:compare ${key} -->`;
}

/** The pull-request comment: the marker, the comparison's Markdown, and links. */
export function commentBody(input: GateReport | TCompareResult, markdown: string, ciUrl?: string | null): string {
  const result = asReport(input);
  const links = [`[head run #${result.head.number}](${result.head.url})`];
  if (result.base) {
    links.push(`[base run #${result.base.number}](${result.base.url})`);
    const compareUrl = compareLink(result.head, result.base);
    if (compareUrl) links.push(`[side by side](${compareUrl})`);
  }
  if (ciUrl) links.push(`[job](${ciUrl})`);
  return `${commentMarker(result)}\n${markdown.trimEnd()}\n\n${links.join(" · ")}\n`;
}

function compareLink(head: GateReport["head"], base: NonNullable<GateReport["base"]>): string | null {
  try {
    const origin = new URL(head.url).origin;
    return `${origin}/compare?runs=${base.id},${head.id}&baseline=${base.id}`;
  } catch {
    return null;
  }
}

export interface PublishOutcome {
  /** What was written: the comment (created or updated), the check run, or the summary only. */
  comment: "created" | "updated" | null;
  commentId: number | null;
  checkRunId: number | null;
  /** Why the pull request was not written to; the job summary says it too. */
  fallback: string | null;
  /**
   * GitHub failed (a 5xx, unreachable, too slow): what the command was doing and what GitHub
   * answered. The comparison's verdict stands; the job summary still carries it.
   */
  warning: string | null;
}

/** All of the command's calls to GitHub together get this long before it gives up on them. */
const GITHUB_BUDGET_MS = 60_000;

/** One line saying what failed: the step, and GitHub's status or the network's error code. */
export function githubFailure(step: string, err: unknown, apiUrl: string, budgetMs = GITHUB_BUDGET_MS): string {
  const error = err as { status?: number; response?: { status?: number }; cause?: unknown; name?: string };
  if (error?.response && typeof error.response.status === "number") {
    return `GitHub answered HTTP ${error.response.status} while ${step}`;
  }
  const cause = (error?.cause ?? null) as { code?: unknown; cause?: { code?: unknown }; name?: string } | null;
  const timedOut = [error?.name, cause?.name].some((name) => name === "AbortError" || name === "TimeoutError");
  const code = timedOut
    ? `no answer within ${budgetMs / 1000} s`
    : [cause?.code, cause?.cause?.code].find((c): c is string => typeof c === "string");
  return `could not reach GitHub at ${apiUrl} (${code ?? (err instanceof Error ? err.message : String(err))}) while ${step}`;
}

/** Annotations for failed thresholds (GitHub takes at most 50 per request). */
export function thresholdAnnotations(input: GateReport | TCompareResult, path: string) {
  const result = asReport(input);
  const thresholds = result.thresholds ?? { passed: true, verdicts: [], tool: [] };
  const failed = thresholds.verdicts.filter((v) => verdictStatus(v) === "fail");
  const unmeasured = thresholds.verdicts.filter((v) => verdictStatus(v) === "not_measured");
  const lines = [
    ...failed.map((v) => ({
      level: "failure" as const,
      title: `Threshold failed: ${metricDef(v.metric).label}`,
      message: `${metricDef(v.metric).label} ${v.op} ${formatMetric(v.metric, v.value)} failed: ${formatMetric(v.metric, v.actual)} (${runName(result.head)}${runIdentityText(result.head) === result.head.scenario.name ? "" : `, ${result.head.scenario.name}`})`,
    })),
    ...thresholds.tool
      .filter((t) => !t.passed)
      .map((t) => ({ level: "failure" as const, title: `Tool threshold failed: ${t.metric}`, message: t.expression })),
    ...unmeasured.map((v) => ({
      level: "warning" as const,
      title: `Threshold not measured: ${metricDef(v.metric).label}`,
      message: `${metricDef(v.metric).label} ${v.op} ${formatMetric(v.metric, v.value)} was not measured`,
    })),
  ];
  return lines.slice(0, 50).map((a) => ({
    path,
    start_line: 1,
    end_line: 1,
    annotation_level: a.level,
    title: a.title.slice(0, 255),
    message: a.message.slice(0, 64_000),
  }));
}

/**
 * An inconclusive gate is `neutral`: neither a green check it did not earn nor a red one for a
 * regression it did not find (the job's exit code still fails the job unless told otherwise).
 */
const CHECK_CONCLUSION: Record<TCompareOutcome, "success" | "failure" | "neutral"> = {
  pass: "success",
  fail: "failure",
  inconclusive: "neutral",
};

/**
 * The check run's name: the scenario and the load that ran, as the run's title says it ("Benchboard:
 * checkout · 400 req/s · 20 s"). The run's number is left to the check's title: a name that
 * changed on every push could not be made a required check.
 */
export function checkName(result: { head: Pick<GateReport["head"], "number" | "title" | "scenario"> }): string {
  const identity = runIdentityText(result.head);
  const scenario = result.head.scenario.name;
  return identity && identity !== scenario ? `Benchboard: ${scenario} · ${identity}` : `Benchboard: ${scenario}`;
}

function checkTitle(result: GateReport): string {
  const run = runName(result.head);
  if (result.outcome === "pass")
    return `${result.base ? "No regression" : "Thresholds passed (no baseline yet)"}: ${run}`;
  if (result.outcome === "fail") return result.reasons[0] ?? `Gate failed: ${run}`;
  return `Inconclusive: ${result.inconclusiveReasons[0] ?? "the gate could not judge"}`;
}

/**
 * Write the comparison to the pull request: the comment (one per scenario, edited in place) and
 * a check run on the head commit. A fork's pull request (read-only token) or a token that may
 * not write gets nothing written; the outcome says why, for the job summary.
 */
export async function publishToGitHub(
  ctx: GitHubContext,
  input: GateReport | TCompareResult,
  markdown: string,
  options: { ciUrl?: string | null; fetch?: typeof fetch; budgetMs?: number } = {},
): Promise<PublishOutcome> {
  const none = (fallback: string): PublishOutcome => ({
    comment: null,
    commentId: null,
    checkRunId: null,
    fallback,
    warning: null,
  });
  if (!ctx.token) return none("GITHUB_TOKEN is not set, so nothing was written to the pull request");
  if (ctx.fork && ctx.eventName !== "pull_request_target") {
    return none(
      "this pull request comes from a fork, whose workflow token may not write to the pull request; the comparison is in this job summary only",
    );
  }
  const octokit = new Octokit({
    auth: ctx.token,
    baseUrl: ctx.apiUrl,
    userAgent: "benchboard-cli",
    request: {
      signal: AbortSignal.timeout(options.budgetMs ?? GITHUB_BUDGET_MS),
      ...(options.fetch ? { fetch: options.fetch } : {}),
    },
  });
  const repo = { owner: ctx.owner, repo: ctx.repo };
  const result = asReport(input);
  const outcome = result.outcome;
  let comment: PublishOutcome["comment"] = null;
  let commentId: number | null = null;
  let checkRunId: number | null = null;
  let step = ctx.pullNumber !== null ? "reading the pull request's comments" : "adding the check run";
  try {
    if (ctx.pullNumber !== null) {
      const body = commentBody(result, markdown, options.ciUrl);
      const marker = commentMarker(result);
      const existing = await findComment(octokit, repo, ctx.pullNumber, marker);
      step = existing ? `updating pull request comment ${existing}` : "creating the pull request comment";
      if (existing) {
        await octokit.request("PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", {
          ...repo,
          comment_id: existing,
          body,
        });
        comment = "updated";
        commentId = existing;
      } else {
        const created = await octokit.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", {
          ...repo,
          issue_number: ctx.pullNumber,
          body,
        });
        comment = "created";
        commentId = Number(created.data.id);
      }
    }
    if (ctx.headSha) {
      step = "adding the check run";
      const annotations = thresholdAnnotations(result, ctx.workflowPath ?? ".github");
      const check = await octokit.request("POST /repos/{owner}/{repo}/check-runs", {
        ...repo,
        name: checkName(result).slice(0, 100),
        head_sha: ctx.headSha,
        status: "completed",
        conclusion: CHECK_CONCLUSION[outcome],
        details_url: result.head.url,
        output: {
          title: checkTitle(result).slice(0, 255),
          summary: markdown.slice(0, 65_000),
          ...(ctx.workflowPath && annotations.length ? { annotations } : {}),
        },
      });
      checkRunId = Number(check.data.id);
    }
    return { comment, commentId, checkRunId, fallback: null, warning: null };
  } catch (err) {
    const status = (err as { response?: { status?: number } }).response?.status;
    if (status === 403 || status === 404 || status === 401) {
      return {
        comment,
        commentId,
        checkRunId,
        fallback: `GitHub refused the write (HTTP ${status}): the token may not write to this pull request (give the job \`permissions: pull-requests: write, checks: write\`); the comparison is in this job summary`,
        warning: null,
      };
    }
    // GitHub having a bad minute never costs the verdict: the caller still prints the Markdown,
    // writes the job summary and exits by the gate, with this one line saying what failed.
    return {
      comment,
      commentId,
      checkRunId,
      fallback: null,
      warning: githubFailure(step, err, ctx.apiUrl, options.budgetMs),
    };
  }
}

/**
 * Who the token writes as: its user for a personal or OAuth token; "app" for a GitHub App's
 * installation token — Actions' GITHUB_TOKEN is one — which may not read `/user` (GitHub answers
 * 403) and whose comments are by the app's bot account.
 */
async function tokenAuthor(octokit: Octokit): Promise<{ id: number } | "app"> {
  try {
    const me = await octokit.request("GET /user");
    return { id: Number(me.data.id) };
  } catch (err) {
    if ((err as { status?: number }).status === 403) return "app";
    throw err;
  }
}

/**
 * This scenario's comment, written by this token earlier: it begins with the marker and its
 * author is the token's own user (the app's bot for an installation token). A person's comment
 * holding the marker — a quote, a copy — is never edited; the command writes a new one instead.
 */
async function findComment(
  octokit: Octokit,
  repo: { owner: string; repo: string },
  issueNumber: number,
  marker: string,
): Promise<number | null> {
  const author = await tokenAuthor(octokit);
  const writtenByUs = (user: { id: number | bigint; type?: string } | null | undefined) =>
    author === "app" ? user?.type === "Bot" : user !== null && user !== undefined && Number(user.id) === author.id;
  // Bounded: 20 pages of 100 comments.
  for (let page = 1; page <= 20; page++) {
    const res = await octokit.request("GET /repos/{owner}/{repo}/issues/{issue_number}/comments", {
      ...repo,
      issue_number: issueNumber,
      per_page: 100,
      page,
    });
    const found = res.data.find((c) => writtenByUs(c.user) && (c.body ?? "").trimStart().startsWith(marker));
    if (found) return Number(found.id);
    if (res.data.length < 100) return null;
  }
  return null;
}
