import { type Command, InvalidArgumentError } from "commander";
import { compareOutcome, type TCompareOutcome, ZCompareResult, ZRun } from "../api-types";
import { ciGitDefaults } from "../ci-env";
import { ApiClient, ApiError, addServerOptions, type ServerOptions, serverConfig } from "../client";
import { CliError, EXIT } from "../exit-codes";
import { compareReport, type GateReport, githubContext, publishToGitHub } from "../github";
import { type CliIo, writeJson } from "../io";
import { lastRunId } from "../state";
import { compareMarkdown, judgedThresholdCount, runGate, runMarkdown } from "../summary";
import { appendStepSummary } from "./run";

interface CompareOptions extends ServerOptions {
  baseline: string;
  head?: string;
  tolerance: number;
  metrics?: string;
  allowNoBaseline?: boolean;
  allowNotMeasured?: boolean;
  allowInvalid?: boolean;
  gate: "noise" | "tolerance" | "statistical";
  history?: number;
  onInconclusive: "fail" | "pass";
  alpha?: number;
  json?: boolean;
  github?: boolean;
}

/** Run ids are cuids: a `c` and 24 lowercase letters or digits. */
const RUN_ID = /^c[a-z0-9]{20,31}$/;

/**
 * `--baseline main` is a branch, `--baseline <run id>` a run; `branch:` and `run:` say which
 * when a branch name could pass for a run id.
 */
export function baselineRef(value: string): string {
  const trimmed = value.trim();
  if (trimmed.startsWith("branch:")) return trimmed;
  if (trimmed.startsWith("run:")) return trimmed.slice(4);
  return RUN_ID.test(trimmed) ? trimmed : `branch:${trimmed}`;
}

function gateKind(value: string): CompareOptions["gate"] {
  if (value === "noise" || value === "tolerance" || value === "statistical") return value;
  throw new InvalidArgumentError("expected noise, tolerance or statistical.");
}

function onInconclusive(value: string): CompareOptions["onInconclusive"] {
  if (value === "fail" || value === "pass") return value;
  throw new InvalidArgumentError("expected fail or pass.");
}

function historyRuns(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 100)
    throw new InvalidArgumentError("expected a whole number from 1 to 100.");
  return n;
}

function alphaLevel(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || n > 0.5)
    throw new InvalidArgumentError("expected a number above 0, at most 0.5.");
  return n;
}

function tolerance(value: string): number {
  const n = Number(value.replace(/%$/, ""));
  if (!Number.isFinite(n) || n < 0 || n > 1000) throw new InvalidArgumentError("expected a percentage from 0 to 1000.");
  return n;
}

export function registerCompare(program: Command, io: CliIo): void {
  addServerOptions(
    program
      .command("compare")
      .description(
        "compare a run against a baseline; exit 1 on a regression, a failed or unmeasured threshold or an invalid head run, exit 3 when the gate could not judge (too few baseline runs, a metric one side lacks, no baseline run and no threshold to judge by), with a Markdown summary and the change points in head's history",
      )
      .requiredOption(
        "--baseline <branch|run>",
        "a branch (its last --history runs of the same scenario and config, succeeded and valid) or a run id",
      )
      .option("--head <run>", "the run to judge (default: the last run uploaded or launched from this directory)")
      .option("--tolerance <percent>", "how much a metric may worsen before it counts as a regression", tolerance, 5)
      .option(
        "--metrics <keys>",
        "comma-separated metrics to judge, e.g. rps,latency_p99 (default: the usual gate metrics)",
      )
      .option(
        "--allow-no-baseline",
        "when the baseline branch has no run yet, gate on the head run's thresholds alone (pass or fail); a run no threshold judged stays inconclusive",
      )
      .option("--allow-not-measured", "a threshold the head run did not measure does not fail the gate")
      .option("--allow-invalid", "a head run the engine flagged invalid does not fail the gate")
      .option(
        "--gate <kind>",
        "what makes a metric a regression: noise (beyond --tolerance and beyond the baseline's own noise), tolerance (beyond --tolerance alone, e.g. against one run) or statistical (beyond the noise alone)",
        gateKind,
        "noise",
      )
      .option(
        "--history <runs>",
        "how many of the baseline branch's latest runs make the baseline (default 5); fewer make the gate inconclusive. Below 3 runs their noise is not estimated: the noise gate passes only metrics within --tolerance, and says so",
        historyRuns,
      )
      .option(
        "--alpha <p>",
        "how rarely one more baseline run may land beyond the noise bound (one-sided; default 0.01)",
        alphaLevel,
      )
      .option(
        "--on-inconclusive <fail|pass>",
        "when the gate could not judge: fail (exit 3) or pass (exit 0; the summary still says inconclusive)",
        onInconclusive,
        "fail",
      )
      .option("--json", "print the comparison as JSON instead of Markdown")
      .option(
        "--github",
        "in GitHub Actions: comment on the pull request (one comment per scenario, updated in place) and add a check run with the verdict; a fork's pull request gets the job summary only",
      ),
  ).action(async (options: CompareOptions) => {
    const github = options.github ? githubContext(io.env) : null;
    if (github && "error" in github) throw new CliError(github.error);
    const client = new ApiClient(serverConfig(options, io));
    const head = options.head ?? (await lastRunId(io));
    if (!head) {
      throw new CliError("no --head given and no run uploaded or launched from this directory: pass --head <run id>");
    }
    const query = new URLSearchParams({
      base: baselineRef(options.baseline),
      head,
      tolerance: String(options.tolerance),
    });
    if (options.metrics) query.set("metrics", options.metrics);
    if (options.allowNotMeasured) query.set("allowNotMeasured", "true");
    if (options.allowInvalid) query.set("allowInvalid", "true");
    query.set("gate", options.gate);
    if (options.history) query.set("history", String(options.history));
    if (options.alpha) query.set("alpha", String(options.alpha));
    let markdown: string;
    let outcome: TCompareOutcome;
    let report: GateReport;
    try {
      const { body, raw } = await client.request({
        method: "GET",
        path: `/compare?${query}`,
        retry: true,
        schema: ZCompareResult,
        what: "compare",
      });
      if (options.json) writeJson(io, raw, false);
      markdown = compareMarkdown(body);
      outcome = compareOutcome(body);
      report = compareReport(body);
    } catch (err) {
      const noBaseline = err instanceof ApiError && err.status === 404 && err.field === "base";
      if (!noBaseline) throw err;
      const { body: run, raw } = await client.request({
        method: "GET",
        path: `/runs/${encodeURIComponent(head)}`,
        retry: true,
        schema: ZRun,
        what: "run",
      });
      const gate = { allowNotMeasured: options.allowNotMeasured, allowInvalid: options.allowInvalid };
      const verdict = runGate(run, gate);
      const why = err.message.replace(/^.*?: base: /, "");
      // Without a baseline nothing was compared: the thresholds alone can fail the run, and pass
      // it only when asked to (--allow-no-baseline) and when some threshold judged it; otherwise
      // the gate could not judge.
      const judged = judgedThresholdCount(run.thresholds) > 0;
      outcome = !verdict.passed ? "fail" : options.allowNoBaseline && judged ? "pass" : "inconclusive";
      const inconclusiveReasons =
        outcome !== "inconclusive"
          ? []
          : options.allowNoBaseline
            ? [`no baseline: ${why}`, `no thresholds: no threshold judged run #${run.number}, so nothing tested it`]
            : [`no baseline: ${why}`];
      if (options.json) {
        const body = raw as Record<string, unknown>;
        writeJson(
          io,
          {
            ...body,
            valid: run.valid ?? null,
            invalidReasons: run.invalidReasons ?? [],
            outcome,
            // `passed` is the gate's, as in a comparison's JSON: an inconclusive gate did not pass.
            passed: outcome === "pass",
            reasons: verdict.reasons,
            inconclusiveReasons,
          },
          false,
        );
      }
      const note =
        outcome !== "inconclusive"
          ? `No baseline yet (${why}); judged by its thresholds alone.`
          : options.allowNoBaseline
            ? `No baseline to compare with (${why}), and no threshold judged the run: nothing tested it. Give the scenario or the project thresholds, or let the baseline branch collect runs.`
            : judged
              ? `No baseline to compare with (${why}): its thresholds passed, but whether it regressed cannot be told. \`--allow-no-baseline\` judges a first run by its thresholds alone.`
              : `No baseline to compare with (${why}), and the run has no thresholds: whether it regressed cannot be told.`;
      markdown = runMarkdown(run, note, gate, {
        headline:
          outcome !== "inconclusive"
            ? undefined
            : options.allowNoBaseline
              ? "## ⚠️ Benchboard: inconclusive, no baseline and no thresholds to judge by"
              : "## ⚠️ Benchboard: inconclusive, no baseline to compare with",
        unjudged: inconclusiveReasons,
      });
      // The pull request hears this verdict too: an inconclusive gate is a neutral check run and a
      // comment that says why, thresholds judged without a baseline are their pass or fail.
      report = {
        head: run,
        base: null,
        outcome,
        reasons: verdict.reasons,
        inconclusiveReasons,
        thresholds: run.thresholds,
      };
    }
    if (github) {
      const published = await publishToGitHub(github, report, markdown, { ciUrl: ciGitDefaults(io.env).ciUrl });
      if (published.comment)
        io.stderr(`benchboard: pull request comment ${published.comment} (id ${published.commentId})\n`);
      if (published.checkRunId !== null) io.stderr(`benchboard: check run ${published.checkRunId} added\n`);
      if (published.fallback) {
        io.stderr(`benchboard: note: ${published.fallback}\n`);
        markdown = `> **Note:** ${published.fallback}.\n\n${markdown}`;
      }
      if (published.warning) {
        io.stderr(
          `benchboard: warning: ${published.warning}; the verdict stands, the comparison is in the job summary\n`,
        );
        markdown = `> **Warning:** ${published.warning}, so the pull request may not show this comparison.\n\n${markdown}`;
      }
    }
    if (!options.json) io.stdout(markdown);
    await appendStepSummary(io, markdown);
    if (outcome === "fail")
      throw new CliError("the comparison failed the gate (see the summary above)", EXIT.gateFailed);
    if (outcome === "inconclusive") {
      if (options.onInconclusive === "pass") {
        io.stderr("benchboard: the gate could not judge; passing as --on-inconclusive pass asks\n");
      } else {
        throw new CliError(
          "the gate could not judge (see the summary above); --on-inconclusive pass lets it pass",
          EXIT.inconclusive,
        );
      }
    }
  });
}
