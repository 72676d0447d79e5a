/**
 * Uploads are read on worker threads, never on the thread that answers requests: a large or
 * hostile file then costs one pool thread for at most `timeoutMs`, and every other request is
 * answered meanwhile. Node-only; the web app and the API import it by its own path.
 *
 * The pool is shared fairly between organizations: each waits in its own queue, a free thread
 * goes to the organization reading the least (round robin among equals), one organization holds
 * at most `maxThreadsPerOwner` threads (by default all but one, so another organization's upload
 * always finds a thread), and the bytes one organization has waiting or being read are bounded
 * by `maxBytesPerOwner`. Work beyond a bound is refused at once with a time to retry after.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { AgentBody, AgentBodyKind } from "./agent-body";
import { ImportError } from "./import-error";
import type { ReadUpload, UploadBody, UploadContent } from "./read-upload";

export interface ParsePoolOptions {
  /** Threads reading uploads at once. */
  size?: number;
  /** A read taking longer is stopped (its thread is replaced) and refused. */
  timeoutMs?: number;
  /** Reads waiting for a thread beyond this (all organizations together) are refused at once. */
  maxQueued?: number;
  /** Reads one organization may have waiting; beyond this its uploads are refused at once. */
  maxQueuedPerOwner?: number;
  /** Threads one organization may hold at once; default: all but one (at least one). */
  maxThreadsPerOwner?: number;
  /** Bytes of uploads one organization may have waiting or being read; more are refused. */
  maxBytesPerOwner?: number;
  /** Heap of one thread, in MB: a read that needs more ends its thread, not the server. */
  maxHeapMb?: number;
}

/** The pool cannot take more work now; the caller should answer 503 and let the client retry. */
export class ParsePoolBusyError extends Error {
  override readonly name = "ParsePoolBusyError";
  constructor(
    message: string,
    /** Seconds after which a retry is likely to be taken. */
    readonly retryAfterS = 1,
  ) {
    super(message);
  }
}

/** Uploads read without an owner share this one. */
const NO_OWNER = "";

/**
 * `read`: an upload's content into a run; `split`: a JSON upload body into its parts;
 * `agent-checkpoint` / `agent-result`: an agent's report body into its checked input.
 */
export type ParseTaskKind = "read" | "split" | `agent-${AgentBodyKind}`;
type TaskKind = ParseTaskKind;

interface Task {
  id: number;
  kind: TaskKind;
  owner: string;
  bytes: number;
  input: UploadContent;
  resolve: (value: never) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  task: Task | null;
  timer: ReturnType<typeof setTimeout> | null;
}

type Reply =
  | { id: number; ok: true; value: unknown }
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
  readonly maxQueuedPerOwner: number;
  readonly maxThreadsPerOwner: number;
  readonly maxBytesPerOwner: number;
  private readonly maxHeapMb: number;
  private readonly slots: Slot[] = [];
  /** Waiting reads by owner; the map's order is the round robin's order. */
  private readonly queues = new Map<string, Task[]>();
  private queued = 0;
  /** Per owner: threads held and bytes waiting or being read. */
  private readonly running = new Map<string, number>();
  private readonly bytes = new Map<string, number>();
  private nextId = 1;
  private closed = false;

  constructor(options: ParsePoolOptions = {}) {
    // Two threads even on two cores: one organization's burst then never takes every thread.
    this.size = Math.max(1, options.size ?? Math.min(4, Math.max(2, availableParallelism() - 1)));
    this.timeoutMs = options.timeoutMs ?? 30_000;
    // Waiting reads are bodies already in memory: the byte budget bounds them per organization,
    // these counts bound the bookkeeping.
    this.maxQueued = options.maxQueued ?? 256;
    this.maxQueuedPerOwner = Math.max(1, options.maxQueuedPerOwner ?? Math.ceil(this.maxQueued / 4));
    this.maxThreadsPerOwner = Math.max(1, Math.min(this.size, options.maxThreadsPerOwner ?? this.size - 1));
    this.maxBytesPerOwner = options.maxBytesPerOwner ?? 32 * 1024 * 1024;
    this.maxHeapMb = options.maxHeapMb ?? 1_024;
  }

  /**
   * Reads an upload on a pool thread, in `owner`'s share of the pool (an organization id);
   * rejects with the ImportError the reading gave, or ParsePoolBusyError when a bound is reached.
   */
  read(input: UploadContent, owner: string = NO_OWNER): Promise<ReadUpload> {
    return this.submit<ReadUpload>("read", input, owner);
  }

  /**
   * Splits a JSON upload body into an envelope's fields and the run it carries (see
   * `splitUploadBody`), in `owner`'s share of the pool like `read`.
   */
  splitBody(text: string, owner: string = NO_OWNER): Promise<UploadBody> {
    return this.submit<UploadBody>("split", { format: "native", content: text }, owner);
  }

  /**
   * Reads an agent's checkpoint or result body (see `readAgentBody`) in `owner`'s share of the
   * pool: the same threads, fairness and byte budget as uploads, since both are a tenant's
   * megabytes of JSON.
   */
  agentBody(kind: AgentBodyKind, text: string, owner: string = NO_OWNER): Promise<AgentBody> {
    return this.submit<AgentBody>(`agent-${kind}`, { format: "native", content: text }, owner);
  }

  private submit<T>(kind: TaskKind, input: UploadContent, owner: string): Promise<T> {
    if (this.closed) return Promise.reject(new Error("the parse pool is closed"));
    const bytes = input.content.length;
    const held = this.bytes.get(owner) ?? 0;
    // One upload alone may always be read (the body limit bounds it); beyond that, the budget.
    if (held > 0 && held + bytes > this.maxBytesPerOwner) {
      const mb = Math.round(this.maxBytesPerOwner / 1024 / 1024);
      return Promise.reject(
        new ParsePoolBusyError(
          `this organization's uploads being read already add up to ${mb} MB; try again shortly`,
          this.retryAfter(owner),
        ),
      );
    }
    if (this.queued >= this.maxQueued || (this.queues.get(owner)?.length ?? 0) >= this.maxQueuedPerOwner) {
      return Promise.reject(
        new ParsePoolBusyError("too many uploads are being read; try again shortly", this.retryAfter(owner)),
      );
    }
    return new Promise<T>((resolve, reject) => {
      const task: Task = {
        id: this.nextId++,
        kind,
        owner,
        bytes,
        input,
        resolve: resolve as (value: never) => void,
        reject,
      };
      const queue = this.queues.get(owner);
      if (queue) queue.push(task);
      else this.queues.set(owner, [task]);
      this.queued += 1;
      this.bytes.set(owner, held + bytes);
      this.dispatch();
    });
  }

  /** What one owner holds now: threads, waiting reads and bytes (for tests and diagnostics). */
  usage(owner: string = NO_OWNER): { threads: number; queued: number; bytes: number } {
    return {
      threads: this.running.get(owner) ?? 0,
      queued: this.queues.get(owner)?.length ?? 0,
      bytes: this.bytes.get(owner) ?? 0,
    };
  }

  /** Seconds until the owner's reads ahead are likely done: a thread reads ~10 MB a second or more. */
  private retryAfter(owner: string): number {
    const mbAhead = (this.bytes.get(owner) ?? 0) / 1024 / 1024 + this.queued;
    return Math.min(30, Math.max(1, Math.ceil(mbAhead / (10 * this.maxThreadsPerOwner))));
  }

  /** Stops every thread; pending reads are refused. */
  async close(): Promise<void> {
    this.closed = true;
    for (const queue of this.queues.values()) {
      for (const task of queue.splice(0)) task.reject(new Error("the parse pool is closed"));
    }
    this.queues.clear();
    this.queued = 0;
    await Promise.all(
      this.slots.splice(0).map((slot) => {
        if (slot.timer) clearTimeout(slot.timer);
        slot.task?.reject(new Error("the parse pool is closed"));
        return slot.worker.terminate();
      }),
    );
  }

  /**
   * The next read to start: from the owner holding the fewest threads that is under its thread
   * share, earliest in the round robin among equals; that owner then moves to the back.
   */
  private next(): Task | null {
    let chosen: string | null = null;
    let fewest = Number.POSITIVE_INFINITY;
    for (const owner of this.queues.keys()) {
      const threads = this.running.get(owner) ?? 0;
      if (threads < this.maxThreadsPerOwner && threads < fewest) {
        chosen = owner;
        fewest = threads;
      }
    }
    if (chosen === null) return null;
    const queue = this.queues.get(chosen) as Task[];
    const task = queue.shift() as Task;
    this.queues.delete(chosen);
    if (queue.length > 0) this.queues.set(chosen, queue);
    this.queued -= 1;
    return task;
  }

  private dispatch(): void {
    while (this.queued > 0) {
      let slot = this.slots.find((s) => s.task === null);
      if (!slot && this.slots.length < this.size) slot = this.spawn();
      if (!slot) return;
      const task = this.next();
      if (!task) return;
      this.running.set(task.owner, (this.running.get(task.owner) ?? 0) + 1);
      slot.task = task;
      slot.worker.ref();
      slot.timer = setTimeout(() => this.fail(slot as Slot, this.timedOut()), this.timeoutMs);
      slot.worker.postMessage({ id: task.id, kind: task.kind, input: task.input });
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
    if (reply.ok) task.resolve(reply.value as never);
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
    const task = slot.task;
    if (task) {
      const threads = (this.running.get(task.owner) ?? 1) - 1;
      if (threads > 0) this.running.set(task.owner, threads);
      else this.running.delete(task.owner);
      const bytes = (this.bytes.get(task.owner) ?? task.bytes) - task.bytes;
      if (bytes > 0) this.bytes.set(task.owner, bytes);
      else this.bytes.delete(task.owner);
    }
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

/** Reads an upload on the process's pool, in the share of `owner` (the organization's id). */
export function readUploadOffThread(input: UploadContent, owner?: string): Promise<ReadUpload> {
  return parsePool().read(input, owner);
}

/** Reads an agent's checkpoint or result body on the process's pool, in the share of `owner`. */
export function readAgentBodyOffThread(kind: AgentBodyKind, text: string, owner?: string): Promise<AgentBody> {
  return parsePool().agentBody(kind, text, owner);
}

/** Splits a JSON upload body on the process's pool, in the share of `owner`. */
export function splitUploadBodyOffThread(text: string, owner?: string): Promise<UploadBody> {
  return parsePool().splitBody(text, owner);
}
