/** What `benchboard agent` is started with (its command line, parsed). */
export interface AgentOptions {
  url?: string;
  name?: string;
  label: string[];
  capacity: number;
  once?: boolean;
  maxRate?: number;
  maxConnections?: number;
  /** Engines this agent runs (`--engine`); empty: every engine. */
  engine: string[];
  pollS: number;
  /** Environment names (or `PREFIX*`) a target's `${env:NAME}` header may read. */
  allowEnv: string[];
  realtime?: boolean;
}

/** The engines an agent can be limited to, as `--engine` takes them. */
export const AGENT_ENGINES = ["http-open", "http-closed", "llm", "ws-chat", "capacity-search"] as const;
