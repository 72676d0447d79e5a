import { CommanderError } from "commander";
import { CliError, EXIT, type ExitCode } from "./exit-codes";
import { type CliIo, processIo } from "./io";
import { createProgram } from "./program";

/** Runs the CLI on `args` (without `node` and the script) and returns the exit code. */
export async function main(args: readonly string[], io: CliIo = processIo): Promise<ExitCode> {
  const program = createProgram(io);
  try {
    await program.parseAsync([...args], { from: "user" });
    return EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and --version end with code 0; usage errors are bad input. Commander has printed them.
      return err.exitCode === 0 ? EXIT.ok : EXIT.badInput;
    }
    if (err instanceof CliError) {
      io.stderr(`benchboard: ${err.message}\n`);
      return err.exitCode;
    }
    io.stderr(`benchboard: unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return EXIT.badInput;
  }
}
