import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ciGitDefaults } from "./ci-env";

describe("ciGitDefaults", () => {
  it("reads a GitHub Actions push", () => {
    expect(
      ciGitDefaults({
        GITHUB_ACTIONS: "true",
        GITHUB_REF_NAME: "main",
        GITHUB_SHA: "0123456789abcdef0123456789abcdef01234567",
        GITHUB_SERVER_URL: "https://github.example.com",
        GITHUB_REPOSITORY: "acme/gateway",
        GITHUB_RUN_ID: "987",
      }),
    ).toEqual({
      branch: "main",
      commit: "0123456789abcdef0123456789abcdef01234567",
      ciUrl: "https://github.example.com/acme/gateway/actions/runs/987",
    });
  });

  it("takes a pull request's branch and pushed commit, not the merge commit GitHub made", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "bb-event-"));
    const eventPath = path.join(dir, "event.json");
    writeFileSync(eventPath, JSON.stringify({ pull_request: { head: { sha: "feedface1234" } } }));
    const git = ciGitDefaults({
      GITHUB_ACTIONS: "true",
      GITHUB_EVENT_NAME: "pull_request",
      GITHUB_EVENT_PATH: eventPath,
      GITHUB_HEAD_REF: "feature/pool",
      GITHUB_REF_NAME: "42/merge",
      GITHUB_SHA: "aaaaaaaaaaaa",
    });
    expect(git).toEqual({ branch: "feature/pool", commit: "feedface1234" });
  });

  it("reads GitLab CI, preferring a merge request's source branch", () => {
    expect(
      ciGitDefaults({
        GITLAB_CI: "true",
        CI_COMMIT_REF_NAME: "refs-name",
        CI_MERGE_REQUEST_SOURCE_BRANCH_NAME: "feature/x",
        CI_COMMIT_SHA: "abcdef1234567",
        CI_JOB_URL: "https://gitlab.example.com/acme/gw/-/jobs/5",
      }),
    ).toEqual({ branch: "feature/x", commit: "abcdef1234567", ciUrl: "https://gitlab.example.com/acme/gw/-/jobs/5" });
  });

  it("knows nothing outside CI", () => {
    expect(ciGitDefaults({ GITHUB_SHA: "abc", CI_COMMIT_SHA: "def" })).toEqual({});
  });
});
