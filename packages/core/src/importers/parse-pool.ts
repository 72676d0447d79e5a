/**
 * Uploads are read on worker threads, never on the thread that answers requests: a large or
 * hostile file then costs one pool thread for at most `timeoutMs`, and every other request is
 * answered meanwhile. Node-only; the web app and the API import it by its own path.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { ImportError } from "./import-error";
import type { ReadUpload, UploadContent } from "./read-upload";

export interface ParsePoolOptions {
  /** Threads reading uploads at once. */
  size?: number;
  /** A read taking longer is stopped (its thread is replaced) and refused. */
  timeoutMs?: number;
  /** Reads waiting for a thread beyond this are refused at once. */
  maxQueued?: number;
  /** Heap of one thread, in MB: a read that needs more ends its thread, not the server. */
  maxHeapMb?: number;
}

/** The pool cannot take more work now; the caller should answer 503 and let the client retry. */
export class ParsePoolBusyError extends Error {
  override readonly name = "ParsePoolBusyError";
}

interface Task {
  id: number;
  input: UploadContent;
  resolve: (value: ReadUpload) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  task: Task | null;
  timer: ReturnType<typeof setTimeout> | null;
}

type Reply =
  | { id: number; ok: true; value: ReadUpload }
  | {
      id: number;
      ok: false;
      error: { importError: boolean; message: string; format?: string; line?: number; field?: string };
    };

function startWorker(maxHeapMb: number): Worker {
  const resourceLimits = { maxOldGenerationSizeMb: maxHeapMb };
  // Inside Next.js the bundler follows this `new Worker(new URL(…))` form and ships the thread's
  // code with the server build. Elsewhere (tests, scripts) the TypeScript source runs through
  // the tsx loader, registered in the thread before the entry is imported.
  if (process.env.NEXT_RUNTIME) {
    return new Worker(new URL("./parse-worker.ts", import.meta.url), { resourceLimits });
  }
  const entry = JSON.stringify(new URL("./parse-worker.ts", import.meta.url).href);
  const bootstrap = `import("tsx/esm/api").then(({ register }) => { register(); return import(${entry}); })`;
  return new Worker(bootstrap, { eval: true, resourceLimits });
}

export class ParsePool {
  readonly size: number;
  readonly timeoutMs: number;
  readonly maxQueued: number;
  private readonly maxHeapMb: number;
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  private nextId = 1;
  private closed = false;

  constructor(options: ParsePoolOptions = {}) {
    this.size = Math.max(1, options.size ?? Math.min(4, Math.max(1, availableParallelism() - 1)));
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.maxQueued = options.maxQueued ?? 64;
    this.maxHeapMb = options.maxHeapMb ?? 1_024;
  }

  /** Reads an upload on a pool thread; rejects with the ImportError the reading gave. */
  read(input: UploadContent): Promise<ReadUpload> {
    if (this.closed) return Promise.reject(new Error("the parse pool is closed"));
    if (this.queue.length >= this.maxQueued) {
      return Promise.reject(new ParsePoolBusyError("too many uploads are being read; try again shortly"));
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, input, resolve, reject });
      this.dispatch();
    });
  }

  /** Stops every thread; pending reads are refused. */
  async close(): Promise<void> {
    this.closed = true;
    for (const task of this.queue.splice(0)) task.reject(new Error("the parse pool is closed"));
    await Promise.all(
      this.slots.splice(0).map((slot) => {
        if (slot.timer) clearTimeout(slot.timer);
        slot.task?.reject(new Error("the parse pool is closed"));
        return slot.worker.terminate();
      }),
    );
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => s.task === null);
      if (!slot && this.slots.length < this.size) slot = this.spawn();
      if (!slot) return;
      const task = this.queue.shift() as Task;
      slot.task = task;
      slot.worker.ref();
      slot.timer = setTimeout(() => this.fail(slot as Slot, this.timedOut()), this.timeoutMs);
      slot.worker.postMessage({ id: task.id, input: task.input });
    }
  }

  private timedOut(): ImportError {
    const seconds = Math.round(this.timeoutMs / 1000);
    return new ImportError("input", `reading the upload took longer than ${seconds} s: split or trim the file`);
  }

  private spawn(): Slot {
    const slot: Slot = { worker: startWorker(this.maxHeapMb), task: null, timer: null };
    slot.worker.unref();
    slot.worker.on("message", (reply: Reply) => this.settle(slot, reply));
    slot.worker.on("error", (err) => this.fail(slot, new Error(`an upload reader thread failed: ${err.message}`)));
    slot.worker.on("exit", () => {
      if (slot.task) this.fail(slot, new Error("an upload reader thread stopped"));
      else this.remove(slot);
    });
    this.slots.push(slot);
    return slot;
  }

  private settle(slot: Slot, reply: Reply): void {
    const task = slot.task;
    if (!task || task.id !== reply.id) return;
    this.release(slot);
    if (reply.ok) task.resolve(reply.value);
    else if (reply.error.importError) task.reject(restoreImportError(reply.error));
    else task.reject(new Error(reply.error.message));
    this.dispatch();
  }

  /** The slot's task fails with `err`; the thread is replaced, as it may still be busy. */
  private fail(slot: Slot, err: Error): void {
    const task = slot.task;
    this.release(slot);
    this.remove(slot);
    void slot.worker.terminate();
    task?.reject(err);
    if (!this.closed) this.dispatch();
  }

  private release(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    slot.task = null;
    slot.worker.unref();
  }

  private remove(slot: Slot): void {
    const at = this.slots.indexOf(slot);
    if (at >= 0) this.slots.splice(at, 1);
  }
}

function restoreImportError(e: { message: string; format?: string; line?: number; field?: string }): ImportError {
  const err = new ImportError(e.format ?? "input", "", { line: e.line, field: e.field });
  err.message = e.message;
  return err;
}

const globals = globalThis as unknown as { benchboardParsePool?: ParsePool };

/** The process's pool, started on first use (one per process, shared by tRPC and REST). */
export function parsePool(): ParsePool {
  globals.benchboardParsePool ??= new ParsePool();
  return globals.benchboardParsePool;
}

/** Reads an upload on the process's pool. */
export function readUploadOffThread(input: UploadContent): Promise<ReadUpload> {
  return parsePool().read(input);
}
