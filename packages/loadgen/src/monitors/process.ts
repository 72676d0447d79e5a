import { execFileSync } from "node:child_process";
import { readdir, readFile, readlink } from "node:fs/promises";

/**
 * Local process figures from /proc (Linux): resident memory and CPU time, and the pid that
 * listens on a TCP port (via the socket inode in /proc/net/tcp{,6} and the fds in /proc/<pid>/fd).
 */

let clockTicks: number | null = null;

/** Kernel clock ticks per second, the unit of CPU times in /proc/<pid>/stat. */
export function clockTicksPerSecond(): number {
  if (clockTicks === null) {
    try {
      clockTicks = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8", timeout: 2000 }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

export interface ProcessReading {
  pid: number;
  rssBytes: number;
  /** user + system CPU time, in seconds. */
  cpuSeconds: number;
}

export async function readProcess(pid: number): Promise<ProcessReading> {
  const [stat, status] = await Promise.all([
    readFile(`/proc/${pid}/stat`, "utf8"),
    readFile(`/proc/${pid}/status`, "utf8"),
  ]);
  // The command name (field 2) may contain spaces and parentheses: fields resume after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  const rssKb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  const rssBytes = rssKb ? Number(rssKb[1]) * 1024 : Number(fields[21]) * 4096;
  return { pid, rssBytes, cpuSeconds: (utime + stime) / clockTicksPerSecond() };
}

export async function processName(pid: number): Promise<string | null> {
  try {
    return (await readFile(`/proc/${pid}/comm`, "utf8")).trim();
  } catch {
    return null;
  }
}

/** Socket inodes listening on `port` (IPv4 and IPv6). */
export async function listeningInodes(port: number): Promise<Set<string>> {
  const inodes = new Set<string>();
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 10) continue;
      const local = cols[1]!;
      const state = cols[3];
      const localPort = Number.parseInt(local.slice(local.lastIndexOf(":") + 1), 16);
      // 0A is TCP_LISTEN.
      if (state === "0A" && localPort === port && cols[9] !== "0") inodes.add(cols[9]!);
    }
  }
  return inodes;
}

/** The pid of the process listening on `port`, or null. */
export async function findPidByPort(port: number): Promise<number | null> {
  const inodes = await listeningInodes(port);
  if (inodes.size === 0) return null;
  const targets = new Set([...inodes].map((i) => `socket:[${i}]`));
  const pids = (await readdir("/proc")).filter((d) => /^\d+$/.test(d));
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = await readdir(`/proc/${pid}/fd`);
    } catch {
      continue; // gone, or not ours to read
    }
    for (const fd of fds) {
      try {
        if (targets.has(await readlink(`/proc/${pid}/fd/${fd}`))) return Number(pid);
      } catch {
        // fd closed meanwhile
      }
    }
  }
  return null;
}
