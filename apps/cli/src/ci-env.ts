import { readFileSync } from "node:fs";

export interface GitDefaults {
  branch?: string;
  commit?: string;
  ciUrl?: string;
}

type Env = Readonly<Record<string, string | undefined>>;

const nonEmpty = (...values: (string | undefined)[]) => values.find((v) => v !== undefined && v.trim() !== "")?.trim();

/**
 * A pull request's head commit. GitHub sets GITHUB_SHA to a merge commit it made for the pull
 * request, which no one can check out later; the event payload has the commit that was pushed.
 */
function githubPullRequestHead(env: Env): string | undefined {
  if (!env.GITHUB_EVENT_NAME?.startsWith("pull_request") || !env.GITHUB_EVENT_PATH) return undefined;
  try {
    const event = JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, "utf8")) as {
      pull_request?: { head?: { sha?: unknown } };
    };
    const sha = event.pull_request?.head?.sha;
    return typeof sha === "string" ? sha : undefined;
  } catch {
    return undefined;
  }
}

/** Branch, commit and job link from the CI system's own variables (GitHub Actions, GitLab CI). */
export function ciGitDefaults(env: Env): GitDefaults {
  if (env.GITHUB_ACTIONS === "true") {
    const server = nonEmpty(env.GITHUB_SERVER_URL);
    const repository = nonEmpty(env.GITHUB_REPOSITORY);
    const runId = nonEmpty(env.GITHUB_RUN_ID);
    return prune({
      // On pull requests GITHUB_REF_NAME is "<n>/merge"; the branch is GITHUB_HEAD_REF.
      branch: nonEmpty(env.GITHUB_HEAD_REF, env.GITHUB_REF_NAME),
      commit: githubPullRequestHead(env) ?? nonEmpty(env.GITHUB_SHA),
      ciUrl: server && repository && runId ? `${server}/${repository}/actions/runs/${runId}` : undefined,
    });
  }
  if (env.GITLAB_CI === "true") {
    return prune({
      branch: nonEmpty(env.CI_MERGE_REQUEST_SOURCE_BRANCH_NAME, env.CI_COMMIT_BRANCH, env.CI_COMMIT_REF_NAME),
      commit: nonEmpty(env.CI_COMMIT_SHA),
      ciUrl: nonEmpty(env.CI_JOB_URL, env.CI_PIPELINE_URL),
    });
  }
  return {};
}

function prune(git: GitDefaults): GitDefaults {
  return Object.fromEntries(Object.entries(git).filter(([, v]) => v !== undefined)) as GitDefaults;
}
