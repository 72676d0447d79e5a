// The thread `runScenarioInThread` runs scenarios on, one at a time, reporting by messages. It
// lives as long as its process: its modules load, and the engines' code warms, once.
import { parentPort } from "node:worker_threads";
import type { FromThread, ToThread } from "./engine-thread";
import { runScenario } from "./index";
import type { Stall } from "./open-loop";
import { EngineConfigError } from "./types";

const port = parentPort!;
const post = (message: FromThread) => port.postMessage(message);
let abort: AbortController | null = null;
const pending = new Map<number, (goOn: boolean) => void>();
let nextId = 0;

port.on("message", (message: ToThread) => {
  switch (message.type) {
    case "run":
      void run(message);
      return;
    case "abort":
      abort?.abort();
      return;
    case "confirmed":
      pending.get(message.id)?.(message.goOn);
      pending.delete(message.id);
      return;
  }
});

async function run({ input, ctx, wants }: Extract<ToThread, { type: "run" }>) {
  const own = new AbortController();
  abort = own;
  try {
    const result = await runScenario(input, {
      ...ctx,
      signal: own.signal,
      onProgress: wants.progress ? (progress) => post({ type: "progress", progress }) : undefined,
      onCheckpoint: wants.checkpoint ? (partial) => post({ type: "checkpoint", partial }) : undefined,
      confirmAfterStall: wants.confirm
        ? (stall: Stall) =>
            new Promise<boolean>((resolve) => {
              const id = nextId++;
              pending.set(id, resolve);
              post({ type: "confirm", id, stall });
            })
        : undefined,
    });
    post({ type: "result", result });
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    post({
      type: "error",
      error: { name: e.name, message: e.message, ...(e instanceof EngineConfigError ? { field: e.field } : {}) },
    });
  } finally {
    abort = null;
    // A question the run no longer waits for is answered "stop" (nothing listens anyway).
    for (const answer of pending.values()) answer(false);
    pending.clear();
  }
}
