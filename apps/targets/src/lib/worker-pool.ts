import { Deque } from "./deque";

interface Blocked<J> {
  job: J;
  admit: () => void;
}

/**
 * A bounded queue in front of a resizable set of async workers: the gateway's request queue
 * (`buffer_size`, `concurrency`) and the chat server's publish channel (`publishChanSize`,
 * `PUBLISH_WORKERS`). A job goes straight to an idle worker when there is one, so the depth counts
 * only jobs that really wait. When the queue is full a producer is either refused (`offer`) or
 * waits for room (`put`), like a full Go channel.
 */
export class WorkerPool<J> {
  private readonly queue = new Deque<J>();
  private readonly blocked = new Deque<Blocked<J>>();
  private readonly idle: Array<(job: J | null) => void> = [];
  private capacity: number;
  private targetWorkers = 0;
  private liveWorkers = 0;
  private busyWorkers = 0;
  private readonly name: string;

  constructor(
    private readonly process: (job: J) => Promise<void>,
    options: { capacity: number; workers: number; name: string },
  ) {
    this.name = options.name;
    this.capacity = options.capacity;
    this.setWorkers(options.workers);
  }

  get depth(): number {
    return this.queue.length;
  }

  get blockedCount(): number {
    return this.blocked.length;
  }

  get busy(): number {
    return this.busyWorkers;
  }

  get workers(): number {
    return this.liveWorkers;
  }

  get queueCapacity(): number {
    return this.capacity;
  }

  /** Hand the job to a worker or the queue; false when the queue is full. */
  offer(job: J): boolean {
    const worker = this.idle.pop();
    if (worker) {
      worker(job);
      return true;
    }
    if (this.queue.length < this.capacity) {
      this.queue.push(job);
      return true;
    }
    return false;
  }

  /** Like `offer`, but waits for room; rejects if `signal` aborts while waiting. */
  put(job: J, signal?: AbortSignal): Promise<void> {
    if (this.blocked.length === 0 && this.offer(job)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const entry: Blocked<J> = {
        job,
        admit: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        this.blocked.remove((b) => b === entry);
        reject(signal?.reason ?? new Error("aborted"));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.blocked.push(entry);
    });
  }

  setCapacity(capacity: number): void {
    this.capacity = capacity;
    this.admitBlocked();
  }

  setWorkers(count: number): void {
    this.targetWorkers = count;
    while (this.liveWorkers < this.targetWorkers) void this.runWorker();
    // Idle workers beyond the target stop now; busy ones stop after their current job.
    let excess = this.liveWorkers - this.targetWorkers;
    while (excess > 0 && this.idle.length > 0) {
      this.idle.pop()!(null);
      excess--;
    }
  }

  private admitBlocked(): void {
    while (this.blocked.length > 0) {
      const worker = this.idle.length > 0 ? this.idle.pop() : undefined;
      if (!worker && this.queue.length >= this.capacity) return;
      const entry = this.blocked.shift()!;
      if (worker) worker(entry.job);
      else this.queue.push(entry.job);
      entry.admit();
    }
  }

  private takeQueued(): J {
    const job = this.queue.shift() as J;
    this.admitBlocked();
    return job;
  }

  /** Resolves with the next offered job, or null when this worker should stop. */
  private waitForJob(): Promise<J | null> {
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private async runWorker(): Promise<void> {
    this.liveWorkers++;
    try {
      while (this.liveWorkers <= this.targetWorkers) {
        const job = this.queue.length > 0 ? this.takeQueued() : await this.waitForJob();
        if (job === null) break;
        this.busyWorkers++;
        try {
          await this.process(job);
        } catch (error) {
          console.error(`[${this.name}] worker error`, error);
        } finally {
          this.busyWorkers--;
        }
      }
    } finally {
      this.liveWorkers--;
    }
  }
}
