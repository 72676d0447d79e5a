import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { EngineProgress } from "@benchboard/core";
import type { Stall } from "./open-loop";
import { EngineConfigError, type EngineContext, type EngineResult } from "./types";

/**
 * `runScenario` on a thread of its own, for processes whose event loop has other work: a worker
 * writes progress and checkpoints to PostgreSQL, renews its queue locks, beats its heartbeat,
 * polls for cancellation and delivers notifications, all on its main thread. Each of those holds
 * the loop for a while, and an open model whose loop is held reads its responses late and counts
 * that as the target's latency. Measured beside a busy install (bench/install.ts), the worker's
 * run read p99 33–124 ms where the same engine alone in a process read 11–92 ms, in five of five
 * pairs. On its own thread the engine has an event loop of its own; the caller's callbacks
 * (progress, checkpoints, the question after a stall) run on the caller's thread, from messages.
 *
 * `onTick` is not forwarded: its times are the thread's `performance.now()`, which means nothing
 * to the caller (`runScenario` uses it inside the thread, to stop at a dead target).
 */
export function runScenarioInThread(input: unknown, ctx: EngineContext): Promise<EngineResult> {
  const { baseUrl, headers, limits, pin, realtime, checkpointMs } = ctx;
  const thread = acquire();
  const abort = () => thread.worker.postMessage({ type: "abort" } satisfies ToThread);
  return new Promise<EngineResult>((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void, reusable: boolean) => {
      if (settled) return;
      settled = true;
      ctx.signal?.removeEventListener("abort", abort);
      thread.worker.off("message", onMessage);
      thread.worker.off("exit", onExit);
      if (reusable) release(thread);
      fn();
    };
    const onMessage = (message: FromThread) => {
      switch (message.type) {
        case "progress":
          ctx.onProgress?.(message.progress);
          return;
        case "checkpoint":
          ctx.onCheckpoint?.(message.partial);
          return;
        case "confirm": {
          const answer = (goOn: boolean) =>
            thread.worker.postMessage({ type: "confirmed", id: message.id, goOn } satisfies ToThread);
          const ask = ctx.confirmAfterStall;
          if (!ask) answer(true);
          else ask(message.stall).then(answer, () => answer(false));
          return;
        }
        case "result":
          settle(() => resolve(message.result), true);
          return;
        case "error":
          settle(() => reject(toError(message.error)), true);
          return;
      }
    };
    const onExit = (code: number) =>
      settle(
        () => reject(new Error(`the engine's thread stopped (exit code ${code}) before it returned a result`)),
        false,
      );
    thread.worker.on("message", onMessage);
    thread.worker.on("exit", onExit);
    thread.worker.postMessage({
      type: "run",
      input,
      ctx: { baseUrl, headers, limits, pin, realtime, checkpointMs },
      wants: { progress: !!ctx.onProgress, checkpoint: !!ctx.onCheckpoint, confirm: !!ctx.confirmAfterStall },
    } satisfies ToThread);
    if (ctx.signal?.aborted) abort();
    else ctx.signal?.addEventListener("abort", abort, { once: true });
  });
}

interface EngineThread {
  worker: Worker;
  alive: boolean;
}

/** Threads with no run: one per run a process has had going at once. */
const idle: EngineThread[] = [];

function acquire(): EngineThread {
  let thread = idle.pop();
  while (thread && !thread.alive) thread = idle.pop();
  if (!thread) {
    const worker = startThread();
    const started: EngineThread = { worker, alive: true };
    worker.on("exit", () => {
      started.alive = false;
    });
    // A thread's failure ends its run (the exit listener above and the run's own); nothing to log here.
    worker.on("error", () => undefined);
    thread = started;
  }
  thread.worker.ref();
  return thread;
}

/** An idle thread does not keep its process alive. */
function release(thread: EngineThread): void {
  if (!thread.alive) return;
  thread.worker.unref();
  idle.push(thread);
}

/**
 * The thread, running the entry beside this file: built JavaScript as it is, or the TypeScript
 * sources (a process started through tsx) with tsx's loader registered in the thread first, since
 * a thread does not inherit the loader hooks of the process that starts it.
 */
function startThread(): Worker {
  if (!import.meta.url.endsWith(".ts")) {
    return new Worker(new URL("./engine-thread-entry.js", import.meta.url));
  }
  // The ESM build of tsx's API: the CommonJS one registers its hooks by a path relative to itself
  // that does not hold in an evaluated thread.
  const tsx = pathToFileURL(
    createRequire(import.meta.url)
      .resolve("tsx/esm/api")
      .replace(/\.cjs$/, ".mjs"),
  ).href;
  const entry = new URL("./engine-thread-entry.ts", import.meta.url).href;
  return new Worker(
    `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`,
    { eval: true },
  );
}

export type ToThread =
  | {
      type: "run";
      input: unknown;
      ctx: ThreadContext;
      wants: { progress: boolean; checkpoint: boolean; confirm: boolean };
    }
  | { type: "abort" }
  | { type: "confirmed"; id: number; goOn: boolean };

export type FromThread =
  | { type: "progress"; progress: EngineProgress }
  | { type: "checkpoint"; partial: EngineResult }
  | { type: "confirm"; id: number; stall: Stall }
  | { type: "result"; result: EngineResult }
  | { type: "error"; error: { name: string; message: string; field?: string } };

/** What of the caller's context crosses to the thread: the data, not the callbacks. */
export type ThreadContext = Pick<EngineContext, "baseUrl" | "headers" | "limits" | "pin" | "realtime" | "checkpointMs">;

/** The thread's error as the caller would have got it in-process (a refused spec keeps its field). */
function toError(e: { name: string; message: string; field?: string }): Error {
  if (e.name === "EngineConfigError" && e.field !== undefined) {
    return new EngineConfigError(e.field, e.message.replace(`${e.field}: `, ""));
  }
  const err = new Error(e.message);
  err.name = e.name;
  return err;
}
