import { readFile } from "node:fs/promises";
import { CliError } from "./exit-codes";

/** Where a command reads input and writes output; the process's streams outside tests. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  readStdin: () => Promise<string>;
  /** The environment: configuration (BENCHBOARD_URL, BENCHBOARD_TOKEN) and CI variables. */
  env: Readonly<Record<string, string | undefined>>;
  /** Whether stderr is a terminal, where a progress bar can redraw itself in place. */
  stderrIsTty: boolean;
}

export const processIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  stderrIsTty: process.stderr.isTTY === true,
  readStdin: async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
    return Buffer.concat(chunks).toString("utf8");
  },
};

/** The text of a file, or of standard input for `-`. */
export async function readInput(io: CliIo, path: string): Promise<string> {
  if (path === "-") return io.readStdin();
  try {
    return await readFile(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const reason =
      code === "ENOENT"
        ? "no such file"
        : code === "EISDIR"
          ? "it is a directory"
          : code === "EACCES"
            ? "permission denied"
            : String(err);
    throw new CliError(`cannot read ${path}: ${reason}`);
  }
}

export function writeJson(io: CliIo, value: unknown, compact: boolean): void {
  io.stdout(`${compact ? JSON.stringify(value) : JSON.stringify(value, null, 2)}\n`);
}
