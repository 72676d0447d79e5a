/**
 * Exit codes shared by every command, so CI scripts can tell a failed gate from a broken call.
 */
export const EXIT = {
  ok: 0,
  /** The run was read fine but failed a gate: thresholds or a regression against a baseline. */
  gateFailed: 1,
  /** Bad input or usage: unreadable file, unknown format, malformed tool output, bad option. */
  badInput: 2,
  /** The gate could not judge: too few baseline runs, a metric one side lacks, an invalid baseline. */
  inconclusive: 3,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An error a command reports as one line on stderr, ending the process with `exitCode`. */
export class CliError extends Error {
  override readonly name = "CliError";
  constructor(
    message: string,
    readonly exitCode: ExitCode = EXIT.badInput,
  ) {
    super(message);
  }
}
