import { ConflictError } from "../errors";

/**
 * What changes when load leaves from an organization's own agents rather than the install's
 * workers — kept here, in one place, apart from the rules for the install's own traffic.
 *
 * An agent run's requests (load, monitor samples, the config hook) start inside the tenant's
 * network, from a process the tenant runs. So:
 * - its target needs no origin verification and may be a private address: nothing the install
 *   sends goes there, and the agent can reach only what its network lets it;
 * - a target marked agent-only (`agentLabel`) is never connected to by the install: not for load
 *   (install workers refuse agent runs), not for "test connection", origin verification,
 *   monitors or the config hook. Its address is not even resolved on the install, since the
 *   name may exist only inside the tenant's network.
 */

export interface AgentLocation {
  /** The organization's agents offering this label run it; null: the install's workers. */
  agentLabel: string | null;
}

/** Load of this run needs the origin verified (or to be a probe) only when the install sends it. */
export function loadNeedsVerification(run: AgentLocation): boolean {
  return !run.agentLabel;
}

/** The install may connect to a target (test connection, verification, monitors) unless it is agent-only. */
export function installMayConnect(target: { agentLabel: string | null }): boolean {
  return !target.agentLabel;
}

export function assertInstallMayConnect(target: { name?: string; agentLabel: string | null }, field = "targetId") {
  if (!installMayConnect(target)) {
    throw new ConflictError(
      field,
      `${target.name ? `target "${target.name}"` : "this target"} is reached only by agents labelled ${target.agentLabel}; the install never connects to it`,
    );
  }
}

/**
 * Where a launch runs: agents when asked for, and always for an agent-only target (on its label
 * unless the launch names another). Asking for both a worker label and agents is refused, as is
 * sending an agent-only target's load from the install's workers.
 */
export function resolveRunLocation(
  target: { name: string; agentLabel: string | null },
  input: { workerLabel?: string | null; agentLabel?: string | null },
): { workerLabel: string | null; agentLabel: string | null } {
  const agentLabel = input.agentLabel || target.agentLabel || null;
  if (agentLabel && input.workerLabel) {
    throw new ConflictError(
      "workerLabel",
      input.agentLabel
        ? "a run goes to agents or to install workers, not both: give agentLabel or workerLabel"
        : `target "${target.name}" is reached only by agents labelled ${target.agentLabel}; install workers never run it`,
    );
  }
  return { workerLabel: agentLabel ? null : (input.workerLabel ?? null), agentLabel };
}
