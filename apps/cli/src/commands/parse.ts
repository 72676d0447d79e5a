import {
  IMPORT_FORMATS,
  ImportError,
  type ImportFormat,
  importRun,
  importRuns,
  resolveImportFormat,
} from "@benchboard/core/importers/index";
import { type Command, InvalidArgumentError, Option } from "commander";
import { CliError } from "../exit-codes";
import { type CliIo, readInput, writeJson } from "../io";

interface ParseOptions {
  format: ImportFormat | "auto";
  provider?: string;
  all?: boolean;
  compact?: boolean;
}

function parseFormat(value: string): ImportFormat | "auto" {
  if (value.toLowerCase() === "auto") return "auto";
  const format = resolveImportFormat(value);
  if (!format) throw new InvalidArgumentError(`expected auto, ${IMPORT_FORMATS.join(", ")} (or wrk2).`);
  return format;
}

export function registerParse(program: Command, io: CliIo): void {
  program
    .command("parse")
    .description("read a load tool's output and print the normalized run as JSON (no server needed)")
    .argument("<file>", "the tool's output file, or - for standard input")
    .addOption(
      new Option("-f, --format <format>", `auto, ${IMPORT_FORMATS.join(", ")} (wrk2 output is read as wrk)`)
        .default("auto")
        .argParser(parseFormat),
    )
    .option("--provider <name>", "bifrost-benchmarking: the provider whose run to print")
    .option("--all", "print every run in the input as a JSON array (a bifrost-benchmarking file has one per provider)")
    .option("--compact", "print the JSON on one line")
    .action(async (file: string, options: ParseOptions) => {
      const text = await readInput(io, file);
      const source = file === "-" ? "standard input" : file;
      try {
        const importOptions = options.provider !== undefined ? { provider: options.provider } : {};
        const output = options.all
          ? importRuns(options.format, text, importOptions)
          : importRun(options.format, text, importOptions);
        writeJson(io, output, options.compact === true);
      } catch (err) {
        if (!(err instanceof ImportError)) throw err;
        const hint =
          err.format === "bifrost" && err.message.includes("choose one") ? " (use --provider <name>, or --all)" : "";
        throw new CliError(`${source}: ${err.message}${hint}`);
      }
    });
}
