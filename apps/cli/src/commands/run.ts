import { randomUUID } from "node:crypto";
import { appendFile } from "node:fs/promises";
import { type Command, InvalidArgumentError } from "commander";
import { TERMINAL_STATUSES, type TRun, ZLaunchResult, ZRun } from "../api-types";
import { ApiClient, addServerOptions, type ServerOptions, serverConfig } from "../client";
import { CliError, EXIT } from "../exit-codes";
import { type CliIo, writeJson } from "../io";
import { ProgressReporter } from "../progress";
import { rememberRun } from "../state";
import { groupMarkdown, runGate, runMarkdown } from "../summary";
import { collect } from "./upload";

interface RunOptions extends ServerOptions {
  project?: string;
  target: string;
  config?: string;
  tag: string[];
  notes?: string;
  repetitions?: number;
  shards?: number;
  workerLabel?: string;
  agentLabel?: string;
  queue?: boolean;
  rate?: number;
  concurrency?: number;
  duration?: number;
  idempotencyKey?: string;
  findCapacity?: boolean;
  sloP99?: number;
  sloErrors?: number;
  minRate?: number;
  maxRate?: number;
  stepFactor?: number;
  resolution?: number;
  plateau?: number;
  warmup?: number;
  wait?: boolean;
  pollInterval: number;
  timeout: number;
  json?: boolean;
  allowNotMeasured?: boolean;
  allowInvalid?: boolean;
}

function positiveNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError("expected a positive number.");
  return n;
}

function percent(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 100) throw new InvalidArgumentError("expected a percentage from 0 to 100.");
  return n;
}

function nonNegativeNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError("expected a number of 0 or more.");
  return n;
}

/**
 * The launch's `findCapacity` from the --find-capacity options; the server checks it (a missing
 * SLO or a minimum above the maximum is a 400 naming the field).
 */
function findCapacityBody(options: RunOptions): Record<string, unknown> | null {
  const given = [
    options.sloP99,
    options.sloErrors,
    options.minRate,
    options.maxRate,
    options.stepFactor,
    options.resolution,
    options.plateau,
    options.warmup,
  ].some((v) => v !== undefined);
  if (!options.findCapacity) {
    if (given)
      throw new CliError(
        "--slo-p99, --min-rate, --max-rate and the other search options need --find-capacity",
        EXIT.badInput,
      );
    return null;
  }
  const slo: Record<string, number> = {};
  if (options.sloP99 !== undefined) slo.p99Ms = options.sloP99;
  if (options.sloErrors !== undefined) slo.errorRatePct = options.sloErrors;
  return {
    ...(options.sloP99 !== undefined || options.sloErrors !== undefined ? { slo } : {}),
    ...(options.minRate !== undefined ? { minRate: options.minRate } : {}),
    ...(options.maxRate !== undefined ? { maxRate: options.maxRate } : {}),
    ...(options.stepFactor !== undefined ? { stepFactor: options.stepFactor } : {}),
    ...(options.resolution !== undefined ? { resolutionPct: options.resolution } : {}),
    ...(options.plateau !== undefined ? { plateauS: options.plateau } : {}),
    ...(options.warmup !== undefined ? { warmupS: options.warmup } : {}),
  };
}

function positiveInteger(value: string): number {
  const n = positiveNumber(value);
  if (!Number.isInteger(n)) throw new InvalidArgumentError("expected a whole number.");
  return n;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Poll a run until it ends, drawing progress on stderr. */
export async function waitForRun(
  client: ApiClient,
  io: CliIo,
  runId: string,
  options: { pollIntervalS: number; timeoutS: number },
): Promise<TRun> {
  const progress = new ProgressReporter(io);
  const deadline = Date.now() + options.timeoutS * 1000;
  try {
    for (;;) {
      const { body: run } = await client.request({
        method: "GET",
        path: `/runs/${encodeURIComponent(runId)}`,
        retry: true,
        schema: ZRun,
        what: "run status",
      });
      progress.update(run);
      if (TERMINAL_STATUSES.has(run.status)) return run;
      if (Date.now() > deadline) {
        throw new CliError(
          `run #${run.number} is still ${run.status} after ${options.timeoutS} s; it goes on on the server: ${run.url}`,
        );
      }
      await sleep(options.pollIntervalS * 1000);
    }
  } finally {
    progress.done();
  }
}

/** Append to the CI job page's summary when the CI offers one (GitHub's GITHUB_STEP_SUMMARY). */
export async function appendStepSummary(io: CliIo, markdown: string): Promise<void> {
  const file = io.env.GITHUB_STEP_SUMMARY;
  if (!file) return;
  try {
    await appendFile(file, `${markdown}\n`);
  } catch (err) {
    io.stderr(`benchboard: note: could not write the step summary to ${file}: ${(err as Error).message}\n`);
  }
}

export function registerRun(program: Command, io: CliIo): void {
  addServerOptions(
    program
      .command("run")
      .description("launch a stored scenario on a target; with --wait, follow it and gate on the outcome")
      .argument("<scenario>", "the scenario's name (with --project) or id")
      .option("--project <slug>", "the project's slug or id (env BENCHBOARD_PROJECT)")
      .requiredOption("--target <name>", "the target's name or id in the scenario's project")
      .option("--config <name>", "an instance config's name or id to run on")
      .option("--tag <tag>", "a tag for the run; repeat for several", collect, [])
      .option("--notes <text>", "free text shown on the run")
      .option("--repetitions <n>", "runs back to back, to judge noise", positiveInteger)
      .option(
        "--shards <n>",
        "split each run across this many worker processes (results merge exactly)",
        positiveInteger,
      )
      .option("--worker-label <label>", "only workers offering this label (e.g. a region) take the run")
      .option("--agent-label <label>", "run it on your organization's agents with this label (`benchboard agent`)")
      .option(
        "--queue",
        "queue the run even if no agent with its label is online (one is about to start); it fails if none takes it in time",
      )
      .option("--rate <req/s>", "override the scenario's arrival rate for this launch", positiveNumber)
      .option("--concurrency <n>", "override the concurrency (users, or an open model's connections)", positiveInteger)
      .option(
        "--duration <seconds>",
        "override the duration (a request count then no longer ends the run)",
        positiveNumber,
      )
      .option(
        "--idempotency-key <key>",
        "launches with the same key start once (e.g. the CI job's id, so a re-attempted job follows the first run)",
      )
      .option(
        "--find-capacity",
        "run the (open-model) scenario as a capacity search: plateaus at stepped, then bisected rates until the knee; needs --slo-p99, --min-rate and --max-rate",
      )
      .option("--slo-p99 <ms>", "with --find-capacity: the p99 latency a sustained rate may not exceed", positiveNumber)
      .option(
        "--slo-errors <percent>",
        "with --find-capacity: the error rate a sustained rate may not exceed (default 1)",
        percent,
      )
      .option("--min-rate <req/s>", "with --find-capacity: the first plateau's rate", positiveNumber)
      .option("--max-rate <req/s>", "with --find-capacity: no plateau goes above it", positiveNumber)
      .option(
        "--step-factor <x>",
        "with --find-capacity: each stepping plateau multiplies the rate by this (default 2)",
        positiveNumber,
      )
      .option(
        "--resolution <percent>",
        "with --find-capacity: bisect until the bracket is this narrow (default 5)",
        positiveNumber,
      )
      .option("--plateau <seconds>", "with --find-capacity: measured seconds per plateau (default 10)", positiveNumber)
      .option(
        "--warmup <seconds>",
        "with --find-capacity: unmeasured seconds before each plateau (default 2)",
        nonNegativeNumber,
      )
      .option(
        "--wait",
        "follow the run until it ends; exit 1 if it fails, is not a valid measurement, or fails or did not measure a threshold",
      )
      .option("--allow-not-measured", "with --wait: a threshold the run did not measure does not fail the gate")
      .option("--allow-invalid", "with --wait: a run the engine flagged invalid does not fail the gate")
      .option("--poll-interval <seconds>", "how often to check on the run with --wait", positiveNumber, 1)
      .option("--timeout <seconds>", "give up waiting after this long (the run goes on)", positiveNumber, 3600)
      .option(
        "--json",
        "print the server's answer as JSON (with --wait: the finished run with `valid`, `invalidReasons`, `passed` and `reasons`)",
      ),
  ).action(async (scenario: string, options: RunOptions) => {
    const findCapacity = findCapacityBody(options);
    const client = new ApiClient(serverConfig(options, io));
    const project = (options.project ?? io.env.BENCHBOARD_PROJECT ?? "").trim();
    const { body, raw } = await client.request({
      method: "POST",
      path: "/runs/launch",
      body: {
        ...(project ? { project } : {}),
        scenario,
        target: options.target,
        ...(options.config ? { instanceConfig: options.config } : {}),
        ...(options.tag.length ? { tags: options.tag } : {}),
        ...(options.notes ? { notes: options.notes } : {}),
        ...(options.repetitions ? { repetitions: options.repetitions } : {}),
        ...(options.shards ? { shards: options.shards } : {}),
        ...(options.workerLabel ? { workerLabel: options.workerLabel } : {}),
        ...(options.agentLabel ? { agentLabel: options.agentLabel } : {}),
        ...(options.queue ? { queueWithoutAgent: true } : {}),
        ...(options.rate ? { rate: options.rate } : {}),
        ...(options.concurrency ? { concurrency: options.concurrency } : {}),
        ...(options.duration ? { durationS: options.duration } : {}),
        ...(findCapacity ? { findCapacity } : {}),
      },
      // The key makes a resent launch return the first one's runs, so network errors can be retried.
      headers: { "idempotency-key": options.idempotencyKey ?? randomUUID() },
      retry: true,
      schema: ZLaunchResult,
      what: "launch",
    });
    const launched = body.run;
    await rememberRun(io, launched);
    // The title names the load that runs (overrides, sweep value); the scenario's name may not.
    const queued = `Queued ${launched.title ?? `run #${launched.number}`} (scenario ${launched.scenario.name}): ${launched.url}\n`;
    if (!options.wait) {
      if (options.json) writeJson(io, raw, false);
      else io.stdout(queued);
      return;
    }
    io.stderr(queued);
    const finished: TRun[] = [];
    for (const id of body.groupRunIds) {
      finished.push(
        await waitForRun(client, io, id, { pollIntervalS: options.pollInterval, timeoutS: options.timeout }),
      );
    }
    const last = finished.at(-1)!;
    await rememberRun(io, last);
    const gate = { allowNotMeasured: options.allowNotMeasured, allowInvalid: options.allowInvalid };
    const judged = finished.map((run) => ({ run, ...runGate(run, gate) }));
    if (options.json) {
      // The run as the server has it, with the gate's verdict and its reasons beside it.
      const out = judged.map(({ run, passed, reasons }) => ({
        ...run,
        valid: run.valid ?? null,
        invalidReasons: run.invalidReasons ?? [],
        passed,
        reasons,
      }));
      writeJson(io, out.length === 1 ? out[0] : out, false);
    } else {
      // A repetition group is judged as one: its mean and spread, and each run's verdict.
      const markdown = finished.length > 1 ? groupMarkdown(finished, gate) : runMarkdown(finished[0]!, undefined, gate);
      io.stdout(markdown);
      for (const run of finished) {
        if (run.capacitySearch) io.stdout(`\nCapacity search: ${run.capacitySearch.statement}\n`);
      }
      await appendStepSummary(io, markdown);
    }
    const failing = judged.filter((j) => !j.passed);
    if (failing.length) throw new CliError(failing.flatMap((j) => j.reasons).join("; "), EXIT.gateFailed);
  });
}
