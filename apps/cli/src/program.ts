import { Command } from "commander";
import packageJson from "../package.json";
import { registerAgent } from "./commands/agent";
import { registerCompare } from "./commands/compare";
import { registerConfig } from "./commands/config";
import { registerExec } from "./commands/exec";
import { registerParse } from "./commands/parse";
import { registerRun } from "./commands/run";
import { registerUpload } from "./commands/upload";
import type { CliIo } from "./io";

/** The package's version, bundled into the built file. */
export const VERSION: string = packageJson.version;

/**
 * The `benchboard` command. Each subcommand lives in `commands/<name>.ts` and reports failures
 * by throwing a CliError with one of the shared exit codes, so CI reads every command's outcome
 * the same way: 0 passed, 1 a gate failed (thresholds, regression), 2 anything else went wrong.
 * Commands that talk to a server read BENCHBOARD_URL and BENCHBOARD_TOKEN.
 */
export function createProgram(io: CliIo): Command {
  const program = new Command()
    .name("benchboard")
    .description("Benchboard from the command line and CI: read load-test results, upload them, gate builds on them")
    .version(VERSION)
    .showHelpAfterError("(run with --help for usage)")
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .exitOverride();
  registerParse(program, io);
  registerUpload(program, io);
  registerRun(program, io);
  registerCompare(program, io);
  registerExec(program, io);
  registerConfig(program, io);
  registerAgent(program, io);
  for (const command of program.commands) command.exitOverride();
  return program;
}
