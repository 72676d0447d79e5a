import { Deque } from "./deque";

/** Caps concurrent work; waiters are served in arrival order. The limit can change at runtime. */
export class Semaphore {
  private active = 0;
  private readonly waiters = new Deque<() => void>();

  constructor(private limit: number) {}

  get running(): number {
    return this.active;
  }

  get waiting(): number {
    return this.waiters.length;
  }

  setLimit(limit: number): void {
    this.limit = limit;
    this.wake();
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit || this.waiters.length > 0) {
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    } else {
      this.active++;
    }
    try {
      return await work();
    } finally {
      this.active--;
      this.wake();
    }
  }

  private wake(): void {
    while (this.active < this.limit && this.waiters.length > 0) {
      this.active++;
      this.waiters.shift()!();
    }
  }
}
