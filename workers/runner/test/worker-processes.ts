import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Db } from "@benchboard/db";
import { waitFor as waitForIn } from "./wait";

/** The worker's entry point, run as production runs it (through tsx instead of a build). */
const ENTRY = fileURLToPath(new URL("../src/index.ts", import.meta.url));

export const isEnded = (status: string) => ["succeeded", "failed", "canceled"].includes(status);

/** Resolves when the process has exited (at once if it already has). */
export const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once("exit", () => resolve()));

/**
 * The worker processes of a test: started by id with `env()` plus their own variables, their
 * output kept (prefixed with the id) and attached to every timed-out wait, stopped together.
 */
export function workerProcesses(env: () => Record<string, string> = () => ({})) {
  const workers = new Map<string, ChildProcess>();
  const logs: string[] = [];
  const waitFor = <T>(check: () => Promise<T | false | null | undefined>, timeoutMs: number, what: string) =>
    waitForIn(check, timeoutMs, what, () => logs.join(""));

  return {
    logs,
    waitFor,
    get(id: string): ChildProcess | undefined {
      return workers.get(id);
    },
    /** One worker taking one job at a time (unless `extra` says otherwise). */
    start(id: string, extra: Record<string, string> = {}): ChildProcess {
      const child = spawn(process.execPath, ["--import", "tsx", ENTRY], {
        env: { ...process.env, BENCHBOARD_WORKER_ID: id, BENCHBOARD_WORKER_CONCURRENCY: "1", ...env(), ...extra },
        stdio: ["ignore", "pipe", "pipe"],
      });
      child.stdout?.on("data", (d) => logs.push(`[${id}] ${d}`));
      child.stderr?.on("data", (d) => logs.push(`[${id}] ${d}`));
      workers.set(id, child);
      return child;
    },
    /** Signal a worker and wait until it has exited. */
    async signal(id: string, signal: NodeJS.Signals = "SIGKILL"): Promise<ChildProcess> {
      const child = workers.get(id);
      if (!child) throw new Error(`no worker ${id}`);
      child.kill(signal);
      await exited(child);
      return child;
    },
    /** SIGKILL every worker still running and wait for them all. */
    async stopAll(): Promise<void> {
      for (const w of workers.values()) if (w.exitCode === null && w.signalCode === null) w.kill("SIGKILL");
      await Promise.all([...workers.values()].map(exited));
      workers.clear();
    },
    /** Until the worker has announced itself in the database (it is ready for jobs soon after). */
    announced(db: Db, id: string, timeoutMs = 30_000): Promise<true> {
      return waitFor(
        async () => (await db.worker.findUnique({ where: { id } })) !== null || null,
        timeoutMs,
        `worker ${id} to announce itself`,
      );
    },
    /**
     * Until `read` gives something `accept` takes (a run in some state), and return it. A read
     * that throws (the database restarting) counts as not yet.
     */
    until<R>(
      read: () => Promise<R | null | undefined>,
      accept: (value: R) => boolean,
      timeoutMs: number,
      what: string,
    ) {
      return waitFor(
        async () => {
          const value = await read().catch(() => null);
          return value !== null && value !== undefined && accept(value) ? value : null;
        },
        timeoutMs,
        what,
      );
    },
  };
}

export type WorkerProcesses = ReturnType<typeof workerProcesses>;
