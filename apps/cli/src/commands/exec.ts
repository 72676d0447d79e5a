import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { StringDecoder } from "node:string_decoder";
import {
  ImportError,
  LineSplitter,
  type LiveSecond,
  parseK6StreamLine,
  parseVegetaResultLine,
  RequestAggregator,
  type RequestSample,
} from "@benchboard/core/importers/index";
import type { Command } from "commander";
import { z } from "zod";
import { ZRun } from "../api-types";
import { ciGitDefaults } from "../ci-env";
import { ApiClient, ApiError, addServerOptions, type ServerOptions, serverConfig } from "../client";
import { CliError, EXIT, type ExitCode } from "../exit-codes";
import type { CliIo } from "../io";
import { rememberRun } from "../state";
import { runName, runNameWithScenario, runPasses, thresholdLines } from "../summary";
import { collect } from "./upload";

interface ExecOptions extends ServerOptions {
  project?: string;
  scenario?: string;
  branch?: string;
  commit?: string;
  ciUrl?: string;
  tag: string[];
  notes?: string;
  gate: boolean;
}

type Tool = "k6" | "vegeta";

const ZStarted = z.object({ run: ZRun });
const ZProgressState = z.object({ status: z.string(), cancelRequested: z.boolean() });

/** Exit code of a command interrupted by Ctrl-C, as shells report it. */
const EXIT_INTERRUPTED = 130;

/** Which tool a command runs, and the stream to read from it; a CliError for anything else. */
export function planExec(command: string[]): { tool: Tool; k6JsonFile: string | null } {
  const [program, sub] = command;
  if (!program) throw new CliError("exec: give the tool's command after --, e.g. benchboard exec -- k6 run script.js");
  const name = path.basename(program).replace(/\.exe$/i, "");
  if (name === "vegeta") {
    if (sub !== "attack") {
      throw new CliError(
        "exec: wrap `vegeta attack …`; Benchboard reads its results and prints vegeta's report itself",
      );
    }
    const output = optionValue(command, ["-output", "--output"]);
    if (output !== null && output !== "stdout" && output !== "-") {
      throw new CliError(`exec: vegeta attack must write its results to standard output (drop -output ${output})`);
    }
    return { tool: "vegeta", k6JsonFile: null };
  }
  if (name === "k6") {
    if (sub !== "run") throw new CliError("exec: wrap `k6 run …`");
    const outs = [...optionValues(command, ["--out", "-o"])].filter((v) => v.startsWith("json="));
    const file = outs[0]?.slice("json=".length) ?? null;
    if (file !== null && /\.gz$/i.test(file)) {
      throw new CliError("exec: k6 --out json must write plain JSON (drop the .gz) so it can be read while k6 runs");
    }
    return { tool: "k6", k6JsonFile: file };
  }
  throw new CliError(`exec: reads k6 (k6 run …) and vegeta (vegeta attack …), not ${name}`);
}

function* optionValues(args: string[], names: string[]): Generator<string> {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    for (const name of names) {
      if (arg === name && args[i + 1] !== undefined) yield args[i + 1]!;
      else if (arg.startsWith(`${name}=`)) yield arg.slice(name.length + 1);
    }
  }
}

function optionValue(args: string[], names: string[]): string | null {
  const [first] = optionValues(args, names);
  return first ?? null;
}

/** Reads a file as another process appends to it (k6 flushes its JSON output every 200 ms). */
class FileTail {
  private offset = 0;
  private readonly decoder = new StringDecoder("utf8");

  constructor(private readonly file: string) {}

  async read(): Promise<string> {
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(this.file, "r");
    } catch {
      return ""; // not created yet
    }
    try {
      let text = "";
      const buffer = Buffer.alloc(1 << 20);
      for (;;) {
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, this.offset);
        if (bytesRead === 0) return text;
        this.offset += bytesRead;
        text += this.decoder.write(buffer.subarray(0, bytesRead));
      }
    } finally {
      await handle.close();
    }
  }
}

export function registerExec(program: Command, io: CliIo): void {
  addServerOptions(
    program
      .command("exec")
      .description(
        "run k6 or vegeta and report it live: the run page follows while the tool runs, the result is stored when it ends",
      )
      .argument("<command...>", "the tool's command after --, e.g. -- vegeta attack -rate 50 -duration 30s")
      .option("--project <slug>", "the project's slug or id (env BENCHBOARD_PROJECT)")
      .option(
        "--scenario <name>",
        "scenario name (default: the tool's); a stored scenario of that name adds its thresholds",
      )
      .option("--branch <name>", "git branch (default: from GitHub Actions or GitLab CI)")
      .option("--commit <sha>", "git commit (default: from the CI environment)")
      .option("--ci-url <url>", "link to the CI job (default: from the CI environment)")
      .option("--tag <tag>", "a tag for the run; repeat for several", collect, [])
      .option("--notes <text>", "free text shown on the run")
      .option("--no-gate", "exit 0 when the tool succeeded even if the run fails its thresholds"),
  ).action(async (command: string[], options: ExecOptions) => {
    const plan = planExec(command);
    const client = new ApiClient(serverConfig(options, io));
    const project = (options.project ?? io.env.BENCHBOARD_PROJECT ?? "").trim();
    if (!project) throw new CliError("--project is required (or set BENCHBOARD_PROJECT)");
    const git = ciGitDefaults(io.env);
    const started = await client.request({
      method: "POST",
      path: "/runs/exec",
      body: {
        project,
        tool: plan.tool,
        ...(options.scenario ? { scenario: options.scenario } : {}),
        ...definedOnly({
          branch: options.branch ?? git.branch,
          commit: options.commit ?? git.commit,
          ciUrl: options.ciUrl ?? git.ciUrl,
          notes: options.notes,
        }),
        ...(options.tag.length ? { tags: options.tag } : {}),
      },
      // The key makes a start sent again (its answer lost) find the run the first one started.
      headers: { "idempotency-key": randomUUID() },
      schema: ZStarted,
      what: "start the run",
    });
    const run = started.body.run;
    await rememberRun(io, run);
    io.stderr(`benchboard: ${runName(run)} is live at ${run.url}\n`);
    let outcome: Outcome;
    try {
      outcome = await runTool(command, plan, client, run.id, io);
    } catch (err) {
      // The tool could not run: end the run failed rather than leave it to the stale-run reaper.
      const reason = err instanceof Error ? err.message : String(err);
      await finish(client, run.id, {
        status: "failed",
        aggregator: new RequestAggregator(plan.tool),
        exitCode: EXIT.badInput,
        error: reason.replace(/^exec: /, ""),
      }).catch(() => {});
      throw err;
    }
    const finished = await finish(client, run.id, outcome);
    await rememberRun(io, finished);
    io.stdout(`Stored ${runNameWithScenario(finished, finished.source)}: ${finished.url}\n`);
    const lines = finished.thresholds ? thresholdLines(finished.thresholds) : [];
    if (lines.length) io.stdout(`Thresholds:\n${lines.join("\n")}\n`);
    if (outcome.status === "canceled")
      throw new CliError(`run #${finished.number} canceled`, EXIT_INTERRUPTED as ExitCode);
    if (outcome.status === "failed") throw new CliError(outcome.error, (outcome.exitCode || EXIT.badInput) as ExitCode);
    if (options.gate && !runPasses(finished)) {
      throw new CliError(
        `run #${finished.number} failed its thresholds (use --no-gate to ignore them)`,
        EXIT.gateFailed,
      );
    }
  });
}

function definedOnly(values: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).filter((e): e is [string, string] => !!e[1]));
}

type Outcome =
  | { status: "succeeded"; aggregator: RequestAggregator; exitCode: 0 }
  | { status: "failed"; aggregator: RequestAggregator; exitCode: number; error: string }
  | { status: "canceled"; aggregator: RequestAggregator; exitCode: number; error: string };

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code, signal) => resolve({ code, signal }));
  });
}

/** Run the tool, feeding its stream to the aggregator and the server; resolves when it has ended. */
async function runTool(
  command: string[],
  plan: ReturnType<typeof planExec>,
  client: ApiClient,
  runId: string,
  io: CliIo,
) {
  const aggregator = new RequestAggregator(plan.tool);
  const splitter = new LineSplitter(plan.tool === "k6" ? "k6 --out json" : "vegeta results (encode)");
  const parse: (line: number, text: string) => RequestSample | null =
    plan.tool === "k6" ? parseK6StreamLine : parseVegetaResultLine;
  let streamError: string | null = null;
  const feed = (text: string, end = false) => {
    if (streamError) return;
    try {
      const lines = splitter.push(text);
      if (end) lines.push(...splitter.end());
      for (const { line, text: body } of lines) {
        const sample = parse(line, body);
        if (sample) aggregator.add(sample);
      }
    } catch (err) {
      if (!(err instanceof ImportError)) throw err;
      streamError = err.message;
      stopTool("SIGINT");
    }
  };

  const [program, ...args] = command as [string, ...string[]];
  let tmp: string | null = null;
  let tail: FileTail | null = null;
  let toolArgs = args;
  if (plan.tool === "k6") {
    let file = plan.k6JsonFile;
    if (file === null) {
      tmp = await mkdtemp(path.join(tmpdir(), "benchboard-k6-"));
      file = path.join(tmp, "points.json");
      toolArgs = [args[0]!, "--out", `json=${file}`, ...args.slice(1)];
    }
    tail = new FileTail(path.resolve(file));
  }

  // The tool runs in its own process group: Ctrl-C reaches benchboard alone, which passes one
  // interrupt on, so the tool stops the way it does on Ctrl-C and its results are still read.
  const spawnTool = (stdio: ("inherit" | "pipe")[]) =>
    spawn(program, toolArgs, { stdio: stdio as ["inherit", "pipe", "inherit"], detached: true });
  let tool: ChildProcess;
  const helpers: ChildProcess[] = [];
  // Watched from the start: a helper may end before the tool's end is noticed.
  const helpersDone: Promise<unknown>[] = [];
  try {
    if (plan.tool === "vegeta") {
      tool = spawnTool(["inherit", "pipe", "inherit"]);
      const encode = spawn(program, ["encode"], { stdio: ["pipe", "pipe", "inherit"] });
      // vegeta's own report of the same results, printed as vegeta prints it.
      const report = spawn(program, ["report"], { stdio: ["pipe", "inherit", "inherit"] });
      helpers.push(encode, report);
      helpersDone.push(exited(encode), exited(report));
      for (const helper of helpers) helper.stdin!.on("error", () => {});
      tool.stdout!.on("data", (chunk: Buffer) => {
        encode.stdin!.write(chunk);
        report.stdin!.write(chunk);
      });
      tool.stdout!.on("end", () => {
        encode.stdin!.end();
        report.stdin!.end();
      });
      encode.stdout!.setEncoding("utf8");
      encode.stdout!.on("data", (text: string) => feed(text));
    } else {
      tool = spawnTool(["inherit", "inherit", "inherit"]);
    }
  } catch (err) {
    throw new CliError(`exec: cannot start ${program}: ${(err as Error).message}`);
  }

  let canceled = false;
  let signals = 0;
  function stopTool(signal: NodeJS.Signals) {
    if (tool.exitCode !== null || tool.signalCode !== null || tool.pid === undefined) return;
    try {
      process.kill(-tool.pid, signal);
    } catch {
      tool.kill(signal);
    }
  }
  const onSignal = () => {
    canceled = true;
    signals++;
    io.stderr(
      signals === 1
        ? "\nbenchboard: stopping the tool (Ctrl-C again to kill it)\n"
        : "\nbenchboard: killing the tool\n",
    );
    stopTool(signals === 1 ? "SIGINT" : "SIGKILL");
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  const killOnExit = () => stopTool("SIGKILL");
  process.on("exit", killOnExit);

  // About once a second: the second just closed goes to the server; the server answers whether
  // someone canceled the run from the web app.
  const pending: LiveSecond[] = [];
  let reporting: Promise<void> = Promise.resolve();
  let warned = false;
  const report = async () => {
    if (tail) feed(await tail.read());
    pending.push(aggregator.tick());
    const samples = pending.splice(0, 60);
    try {
      const { body } = await client.request({
        method: "POST",
        path: `/runs/${encodeURIComponent(runId)}/progress`,
        body: { ...aggregator.progress(), samples },
        // Not retried here: unsent samples go with the next second's report.
        retryPolicy: { forMs: 0 },
        schema: ZProgressState,
        what: "progress",
      });
      if ((body.cancelRequested || body.status !== "running") && !canceled) {
        canceled = true;
        io.stderr(
          `benchboard: the run was ${body.status === "running" ? "canceled" : body.status} on the server; stopping the tool\n`,
        );
        stopTool("SIGINT");
      }
    } catch (err) {
      // The load goes on; the figures are kept and sent with the result.
      pending.unshift(...samples);
      pending.splice(0, Math.max(0, pending.length - 60));
      if (!warned) io.stderr(`benchboard: note: could not send progress (${(err as Error).message}); continuing\n`);
      warned = true;
    }
  };
  const timer = setInterval(() => {
    reporting = reporting.then(report);
  }, 1000);

  let status: { code: number | null; signal: NodeJS.Signals | null };
  const toolDone = exited(tool);
  try {
    status = await toolDone;
    await Promise.all(helpersDone);
    if (tail) feed(await tail.read());
    feed("", true);
  } catch (err) {
    throw new CliError(`exec: cannot run ${program}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  } finally {
    clearInterval(timer);
    await reporting;
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    process.off("exit", killOnExit);
    if (tmp) await rm(tmp, { recursive: true, force: true });
  }
  aggregator.tick();
  const name = path.basename(program);
  const exitCode = status.code ?? (status.signal ? 128 + signalNumber(status.signal) : 1);
  if (streamError) {
    return {
      status: "failed",
      aggregator,
      exitCode: EXIT.badInput,
      error: `could not read ${name}'s results: ${streamError}`,
    } as Outcome;
  }
  if (canceled)
    return {
      status: "canceled",
      aggregator,
      exitCode,
      error: `interrupted; ${name} exited with status ${exitCode}`,
    } as Outcome;
  if (exitCode !== 0)
    return { status: "failed", aggregator, exitCode, error: `${name} exited with status ${exitCode}` } as Outcome;
  return { status: "succeeded", aggregator, exitCode: 0 } as Outcome;
}

function signalNumber(signal: NodeJS.Signals): number {
  return ({ SIGINT: 2, SIGKILL: 9, SIGTERM: 15 } as Record<string, number>)[signal] ?? 1;
}

async function finish(client: ApiClient, runId: string, outcome: Outcome) {
  const result =
    outcome.aggregator.totalRequests > 0 ? outcome.aggregator.result({ exitCode: outcome.exitCode }).result : undefined;
  try {
    const { body } = await client.request({
      method: "POST",
      path: `/runs/${encodeURIComponent(runId)}/finish`,
      body: {
        status: outcome.status,
        ...(outcome.status !== "succeeded" ? { error: outcome.error } : {}),
        ...(result ? { result } : {}),
      },
      retry: true,
      schema: ZStarted,
      what: "store the result",
    });
    return body.run;
  } catch (err) {
    // A resent finish after a lost answer finds the run ended: read it.
    if (!(err instanceof ApiError) || err.status !== 409) throw err;
    const { body } = await client.request({
      method: "GET",
      path: `/runs/${encodeURIComponent(runId)}`,
      retry: true,
      schema: ZRun,
      what: "run",
    });
    return body;
  }
}
