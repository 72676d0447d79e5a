import { Command } from "commander";
import { registerParse } from "./commands/parse";
import type { CliIo } from "./io";

export const VERSION = "0.1.0";

/**
 * The `benchboard` command. Each subcommand lives in `commands/<name>.ts` and reports failures
 * by throwing a CliError with one of the shared exit codes, so commands that talk to a server
 * (upload, run --wait, compare --baseline) slot in beside `parse` without changing how CI
 * reads the outcome.
 */
export function createProgram(io: CliIo): Command {
  const program = new Command()
    .name("benchboard")
    .description("Benchboard from the command line and CI: read load-test results, gate builds on them")
    .version(VERSION)
    .showHelpAfterError("(run with --help for usage)")
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .exitOverride();
  registerParse(program, io);
  for (const command of program.commands) command.exitOverride();
  return program;
}
