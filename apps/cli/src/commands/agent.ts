import { type Command, InvalidArgumentError } from "commander";
import { z } from "zod";
import { AGENT_ENGINES, type AgentOptions } from "../agent/options";
import { ApiClient, addServerOptions, type ServerOptions, serverConfig } from "../client";
import type { CliIo } from "../io";

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

function collectEngine(value: string, previous: string[]): string[] {
  const engines = collect(value, []).map((e) => e.trim());
  for (const engine of engines) {
    if (!(AGENT_ENGINES as readonly string[]).includes(engine)) {
      throw new InvalidArgumentError(`unknown engine ${engine}: one of ${AGENT_ENGINES.join(", ")}.`);
    }
  }
  return [...previous, ...engines];
}

/**
 * `benchboard agent`: run the organization's agent runs from inside its own network. Only
 * outbound HTTP(S) to the Benchboard server: announce, long-poll for work, then per run a
 * heartbeat, per-second progress, checkpoints and the final result.
 */
export function registerAgent(program: Command, io: CliIo): void {
  const agent = program
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
    .option(
      "--max-rate <req/s>",
      "never send more than this, whatever the organization's caps allow; runs (or shards) asking more go to other agents",
      positiveNumber,
    )
    .option(
      "--max-connections <n>",
      "never open more connections (or chat users) than this; runs asking more go to other agents",
      positiveInteger,
    )
    .option(
      "--engine <name>",
      `run only these engines (repeatable or comma-separated: ${AGENT_ENGINES.join(", ")}; default every engine)`,
      collectEngine,
      [],
    )
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

  addServerOptions(
    agent
      .command("remove <name>")
      .description(
        "remove an offline agent of the organization by name (a finished --once CI agent, a pod gone for good); needs an API token with config:write in BENCHBOARD_TOKEN",
      ),
  ).action(async (name: string, _options: ServerOptions, command: Command) => {
    // `agent` has its own --url, which commander may hand to it rather than to this subcommand.
    const client = new ApiClient(serverConfig(command.optsWithGlobals<ServerOptions>(), io));
    const { body } = await client.request({
      method: "DELETE",
      path: `/agents/${encodeURIComponent(name)}`,
      schema: ZRemoved,
      what: "remove agent",
    });
    io.stdout(`Removed agent ${body.removed.name}\n`);
  });
}

const ZRemoved = z.object({ removed: z.object({ id: z.string(), name: z.string() }) });
