import { type Command, InvalidArgumentError } from "commander";
import type { CliIo } from "../io";

export interface AgentOptions {
  url?: string;
  name?: string;
  label: string[];
  capacity: number;
  once?: boolean;
  maxRate?: number;
  maxConnections?: number;
  pollS: number;
  realtime?: boolean;
  /** False with `--no-idle-helpers`. */
  idleHelpers?: boolean;
  /** False with `--no-loop-slice`. */
  loopSlice?: boolean;
}

function positiveNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError("expected a positive number.");
  return n;
}

function positiveInteger(value: string): number {
  const n = positiveNumber(value);
  if (!Number.isInteger(n)) throw new InvalidArgumentError("expected a whole number.");
  return n;
}

const collect = (value: string, previous: string[]) => [...previous, ...value.split(",").filter(Boolean)];

/**
 * `benchboard agent`: run the organization's agent runs from inside its own network. Only
 * outbound HTTP(S) to the Benchboard server: announce, long-poll for work, then per run a
 * heartbeat, per-second progress, checkpoints and the final result.
 */
export function registerAgent(program: Command, io: CliIo): void {
  program
    .command("agent")
    .description(
      "Take this organization's agent runs and run them from here (inside your network). Needs an agent token in BENCHBOARD_AGENT_TOKEN.",
    )
    .option("--url <url>", "the Benchboard web app, e.g. https://bench.example.com (env BENCHBOARD_URL)")
    .option("--name <name>", "this agent's name in the organization (default: the host name)")
    .option(
      "--label <label>",
      "take runs launched for agents with this label (repeatable, or comma-separated)",
      collect,
      [],
    )
    .option("--capacity <n>", "runs (or shards) to execute at once", positiveInteger, 1)
    .option("--once", "take one run, execute it, and exit (CI jobs)")
    .option("--max-rate <req/s>", "never send more than this, whatever the organization's caps allow", positiveNumber)
    .option("--max-connections <n>", "never open more connections than this", positiveInteger)
    .option("--poll-s <seconds>", "how long one request for work waits on the server", positiveNumber, 20)
    .option(
      "--realtime",
      "send open-model load (http-open, llm) from real-time-priority threads up to 5,000 req/s: Linux, as root or with CAP_SYS_NICE; for hosts that only generate load (env BENCHBOARD_ENGINE_REALTIME=1)",
    )
    .option(
      "--no-idle-helpers",
      "leave this process's collector, compiler and I/O threads at normal priority during open-model runs (by default they go to idle priority, so that they never hold the core the engine sends from; env BENCHBOARD_ENGINE_IDLE_HELPERS=0)",
    )
    .option(
      "--no-loop-slice",
      "leave the event loop and pacing thread at the kernel's default slice during open-model runs (by default, up to 1,000 req/s, they take the shortest, 0.1 ms, so that they win their wake-ups; Linux 6.12+; and the pacing thread runs at SCHED_BATCH, never preempting the loop; env BENCHBOARD_ENGINE_LOOP_SLICE=0)",
    )
    .action(async (options: AgentOptions) => {
      // The engines load only for this command, so every other command starts as fast as before.
      const { runAgent } = await import("../agent/agent-loop");
      await runAgent(options, io, process);
    });
}
