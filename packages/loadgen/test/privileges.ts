import { readFileSync } from "node:fs";

/**
 * Whether this process has CAP_SYS_NICE (root has it unless a container dropped it): it may
 * lower nice values and raise threads to real-time priority.
 */
export function hasCapSysNice(): boolean {
  const status = readFileSync("/proc/self/status", "utf8");
  return ((BigInt(`0x${/CapEff:\s+([0-9a-f]+)/.exec(status)?.[1] ?? "0"}`) >> 23n) & 1n) === 1n;
}

/** Whether this process may raise a thread to SCHED_FIFO: CAP_SYS_NICE or an RLIMIT_RTPRIO of at least 1. */
export function mayUseRealtime(): boolean {
  const rtprio = /Max realtime priority\s+(\S+)/.exec(readFileSync("/proc/self/limits", "utf8"))?.[1] ?? "0";
  return hasCapSysNice() || rtprio === "unlimited" || Number(rtprio) >= 1;
}
