/**
 * Which variables of the agent host's environment a target's header may name as `${env:NAME}`.
 * Targets are written by any member of the organization (or a `config:write` token), and the
 * agent sends the value to whatever host the target names: without a list, anyone who may edit
 * a target could collect the host's cloud credentials or the agent's own token. So the agent
 * reads only the names its operator allows, and never its own token.
 */

/** The agent's own token: never handed to a target, whatever the allow-list says. */
export const AGENT_TOKEN_VAR = "BENCHBOARD_AGENT_TOKEN";
/** The environment form of `--allow-env`: names or prefixes, comma-separated. */
export const ALLOW_ENV_VAR = "BENCHBOARD_AGENT_ALLOW_ENV";

export interface EnvAllowList {
  /** Names allowed exactly. */
  names: ReadonlySet<string>;
  /** Prefixes allowed (from `BENCH_*`). */
  prefixes: readonly string[];
}

const ENTRY = /^([A-Za-z_][A-Za-z0-9_]*)(\*?)$/;

/**
 * The allow-list from `--allow-env` entries and `BENCHBOARD_AGENT_ALLOW_ENV`: `NAME` or a prefix
 * `PREFIX*`. A bare `*` (every variable) is refused, as is anything that is not a variable name.
 */
export function parseAllowEnv(entries: readonly string[], fromEnv: string | undefined): EnvAllowList {
  const names = new Set<string>();
  const prefixes: string[] = [];
  const all = [...entries, ...(fromEnv ?? "").split(",")].map((e) => e.trim()).filter(Boolean);
  for (const entry of all) {
    if (entry === "*") {
      throw new Error(
        "--allow-env '*' would let any target read every variable of this host (cloud credentials too): name the variables, or a prefix such as 'BENCH_*'",
      );
    }
    const m = ENTRY.exec(entry);
    if (!m) {
      throw new Error(
        `--allow-env ${entry}: expected a variable name (letters, digits, _) or a prefix ending in *, e.g. GATEWAY_KEY or 'BENCH_*'`,
      );
    }
    if (m[2]) prefixes.push(m[1]!);
    else names.add(m[1]!);
  }
  return { names, prefixes };
}

export function mayRead(allow: EnvAllowList, name: string): boolean {
  if (name === AGENT_TOKEN_VAR) return false;
  return allow.names.has(name) || allow.prefixes.some((p) => name.startsWith(p));
}

const ENV_REFERENCE = /^\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}$/;

/**
 * Header values written as `${env:NAME}` come from the agent's environment (the server never has
 * them), for allowed names only. A refused or unset name fails the run, naming the header and how
 * to allow it; the value itself never appears in the message.
 */
export function resolveHeaders(
  headers: { name: string; value: string }[],
  env: Readonly<Record<string, string | undefined>>,
  allow: EnvAllowList,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of headers) {
    const ref = ENV_REFERENCE.exec(h.value.trim());
    if (!ref) {
      out[h.name] = h.value;
      continue;
    }
    const name = ref[1]!;
    const asked = `\${env:${name}}`;
    if (name === AGENT_TOKEN_VAR) {
      throw new Error(
        `header ${h.name}: the target asks for ${asked}, the agent's own token, which it never sends; give the target another variable`,
      );
    }
    if (!mayRead(allow, name)) {
      throw new Error(
        `header ${h.name}: the target asks for ${asked}, and this agent does not read ${name}; its operator allows it with --allow-env ${name} (or ${ALLOW_ENV_VAR}=${name})`,
      );
    }
    const value = env[name];
    if (value === undefined || value === "") {
      throw new Error(`header ${h.name}: the agent's environment has no ${name} (the target asks for ${asked})`);
    }
    out[h.name] = value;
  }
  return out;
}
