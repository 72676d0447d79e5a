import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { IMPORT_FORMATS, resolveImportFormat } from "@benchboard/core/importers/index";
import { type Command, InvalidArgumentError, Option } from "commander";
import { ZUploadResult } from "../api-types";
import { ciGitDefaults } from "../ci-env";
import { ApiClient, addServerOptions, type ServerOptions, serverConfig } from "../client";
import { CliError, EXIT } from "../exit-codes";
import { type CliIo, readInput, writeJson } from "../io";
import { rememberRun } from "../state";
import { runGate, runNameWithScenario, thresholdLines } from "../summary";

/** What the server accepts; checked here too so a CI log says so before sending 10 MB. */
const MAX_UPLOAD_BYTES = 10_000_000;

interface UploadOptions extends ServerOptions {
  format: string;
  project?: string;
  scenario?: string;
  provider?: string;
  branch?: string;
  commit?: string;
  ciUrl?: string;
  tag: string[];
  notes?: string;
  configJson?: string;
  idempotencyKey?: string;
  gate: boolean;
  json?: boolean;
}

function parseFormat(value: string): string {
  const lower = value.toLowerCase();
  if (lower === "auto" || lower === "native") return lower;
  const format = resolveImportFormat(lower);
  if (!format) throw new InvalidArgumentError(`expected auto, native, ${IMPORT_FORMATS.join(", ")} (or wrk2).`);
  return format;
}

export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** `--config-json '{"vcpu":2}'` or `--config-json @config.json`: an object, or a clear error. */
export async function readConfigJson(value: string): Promise<Record<string, unknown>> {
  let text = value;
  if (value.startsWith("@")) {
    try {
      text = await readFile(value.slice(1), "utf8");
    } catch (err) {
      throw new CliError(`--config-json: cannot read ${value.slice(1)}: ${(err as NodeJS.ErrnoException).code ?? err}`);
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new CliError(`--config-json: not valid JSON: ${(err as Error).message}`);
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new CliError(
      '--config-json: must be a JSON object like {"instanceType":"t3.medium","vcpu":2,"memoryMb":4096,"knobs":{"workers":8}}',
    );
  }
  return parsed as Record<string, unknown>;
}

export function registerUpload(program: Command, io: CliIo): void {
  addServerOptions(
    program
      .command("upload")
      .description("store a finished run from a load tool's output (or Benchboard run JSON) on the server")
      .argument("<file>", "the tool's output file, or - for standard input")
      .addOption(
        new Option("-f, --format <format>", `auto, native, ${IMPORT_FORMATS.join(", ")} (wrk2 output is read as wrk)`)
          .default("auto")
          .argParser(parseFormat),
      )
      .option("--project <slug>", "the project's slug or id (env BENCHBOARD_PROJECT)")
      .option("--scenario <name>", "scenario name; a stored scenario of that name adds its thresholds")
      .option("--provider <name>", "bifrost-benchmarking: the provider whose run to upload")
      .option("--branch <name>", "git branch (default: from GitHub Actions or GitLab CI)")
      .option("--commit <sha>", "git commit (default: from the CI environment)")
      .option("--ci-url <url>", "link to the CI job (default: from the CI environment)")
      .option("--tag <tag>", "a tag for the run; repeat for several", collect, [])
      .option("--notes <text>", "free text shown on the run")
      .option(
        "--config-json <json>",
        "where the target ran, as JSON or @file: instanceType, vcpu, memoryMb, cpuLimit, replicas, knobs",
      )
      .option("--idempotency-key <key>", "retries with the same key store one run (default: a hash of the upload)")
      .option("--no-gate", "exit 0 even when the run fails its thresholds")
      .option("--json", "print the server's answer as JSON"),
  ).action(async (file: string, options: UploadOptions) => {
    const client = new ApiClient(serverConfig(options, io));
    const project = (options.project ?? io.env.BENCHBOARD_PROJECT ?? "").trim();
    if (!project) throw new CliError("--project is required (or set BENCHBOARD_PROJECT)");
    const content = await readInput(io, file);
    const size = Buffer.byteLength(content);
    if (size > MAX_UPLOAD_BYTES) {
      throw new CliError(`${file}: ${(size / 1e6).toFixed(1)} MB is more than the server accepts (10 MB)`);
    }
    const git = { ...ciGitDefaults(io.env) };
    const envelope = {
      project,
      format: options.format,
      content,
      ...(options.scenario ? { scenario: options.scenario } : {}),
      ...(options.provider ? { provider: options.provider } : {}),
      ...(options.configJson ? { instanceConfig: await readConfigJson(options.configJson) } : {}),
      ...pick({
        branch: options.branch ?? git.branch,
        commit: options.commit ?? git.commit,
        ciUrl: options.ciUrl ?? git.ciUrl,
      }),
      ...(options.tag.length ? { tags: options.tag } : {}),
      ...(options.notes ? { notes: options.notes } : {}),
    };
    // The same upload sent again (a retried step, a lost answer) finds the run stored the first time.
    const key = options.idempotencyKey ?? createHash("sha256").update(JSON.stringify(envelope)).digest("hex");
    const { body, raw } = await client.request({
      method: "POST",
      path: "/runs",
      body: envelope,
      headers: { "idempotency-key": key },
      retry: true,
      schema: ZUploadResult,
      what: "upload",
    });
    const { run } = body;
    await rememberRun(io, run);
    if (options.json) {
      writeJson(io, raw, false);
    } else {
      io.stdout(
        `${body.created ? "Stored" : "Already stored"} ${runNameWithScenario(run, run.source)} in ${run.project.name}: ${run.url}\n`,
      );
      const lines = run.thresholds ? thresholdLines(run.thresholds) : [];
      if (lines.length) io.stdout(`Thresholds:\n${lines.join("\n")}\n`);
    }
    const gate = runGate(run);
    if (options.gate && !gate.passed) {
      throw new CliError(`${gate.reasons.join("\n")}\n(use --no-gate to upload without gating)`, EXIT.gateFailed);
    }
  });
}

function pick(values: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).filter((e): e is [string, string] => !!e[1]));
}
