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
  /** Environment names (or `PREFIX*`) a target's `${env:NAME}` header may read. */
  allowEnv: string[];
  realtime?: boolean;
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
      "--allow-env <name>",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the placeholder a target's header value is written as
      "let targets' ${env:NAME} header values read this variable of the agent's environment (repeatable or comma-separated; a prefix such as 'BENCH_*' allows every name starting with it; env BENCHBOARD_AGENT_ALLOW_ENV). Nothing else is read, and never BENCHBOARD_AGENT_TOKEN",
      collect,
      [],
    )
    .option(
      "--realtime",
      "send open-model load (http-open, llm) from real-time-priority threads up to 5,000 req/s: Linux, as root or with CAP_SYS_NICE; for hosts that only generate load (env BENCHBOARD_ENGINE_REALTIME=1)",
    )
    .action(async (options: AgentOptions) => {
      // The engines load only for this command, so every other command starts as fast as before.
      const { runAgent } = await import("../agent/agent-loop");
      await runAgent(options, io, process);
    });
}
