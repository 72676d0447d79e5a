import type { TRun } from "./api-types";
import type { CliIo } from "./io";

const WIDTH = 24;

function num(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

/** One line describing a run's progress: bar, percentage, requests, errors, rate. */
export function progressLine(run: Pick<TRun, "number" | "status" | "progress" | "waitingFor">): string {
  // A queued agent run says what it waits for rather than drawing an empty bar.
  if (run.status === "queued" && run.waitingFor) return `run #${run.number} queued: ${run.waitingFor.message}`;
  const p = run.progress ?? {};
  const fraction = num(p.fraction);
  const bar =
    fraction === null
      ? `[${"·".repeat(WIDTH)}]`
      : `[${"#".repeat(Math.round(Math.min(1, fraction) * WIDTH)).padEnd(WIDTH, "-")}]`;
  const parts = [`run #${run.number} ${run.status}`, bar];
  if (fraction !== null) parts.push(`${Math.round(Math.min(1, fraction) * 100)}%`);
  const requests = num(p.requests);
  const errors = num(p.errors);
  const rps = num(p.rps);
  if (requests !== null) parts.push(`${requests.toLocaleString("en-US")} req`);
  if (errors !== null) parts.push(`${errors.toLocaleString("en-US")} err`);
  if (rps !== null) parts.push(`${rps.toLocaleString("en-US", { maximumFractionDigits: 0 })} req/s`);
  return parts.join(" ");
}

/**
 * Progress on stderr: redrawn in place on a terminal; in a CI log (not a terminal) a new line
 * only when the status changes or another tenth is done, so the log stays short.
 */
export class ProgressReporter {
  private lastKey = "";
  private drawn = false;

  constructor(private readonly io: CliIo) {}

  update(run: Pick<TRun, "number" | "status" | "progress" | "waitingFor">): void {
    const line = progressLine(run);
    if (this.io.stderrIsTty) {
      this.io.stderr(`\r\x1b[2K${line}`);
      this.drawn = true;
      return;
    }
    const fraction = num(run.progress?.fraction);
    const key = `${run.status}:${fraction === null ? "" : Math.floor(fraction * 10)}:${run.waitingFor?.message ?? ""}`;
    if (key === this.lastKey) return;
    this.lastKey = key;
    this.io.stderr(`${line}\n`);
  }

  done(): void {
    if (this.drawn) this.io.stderr("\n");
    this.drawn = false;
  }
}
