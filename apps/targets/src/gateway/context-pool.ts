const INITIAL_BUFFER_BYTES = 4096;

/**
 * Per-request scratch state. The upstream response is read into `buffer`, which is reused across
 * requests the way Bifrost reuses pooled objects; it grows to the largest body seen.
 */
export class RequestContext {
  buffer: Buffer;
  length = 0;

  constructor() {
    this.buffer = Buffer.alloc(INITIAL_BUFFER_BYTES);
    // Touch every page so that a pool's memory cost shows in RSS at startup, as it would for a
    // pool that has been warmed by traffic; lazily mapped zero pages would hide it.
    this.buffer.fill(0x20);
  }

  write(text: string): void {
    const needed = this.length + Buffer.byteLength(text);
    if (needed > this.buffer.length) {
      const grown = Buffer.allocUnsafe(Math.max(needed, this.buffer.length * 2));
      this.buffer.copy(grown, 0, 0, this.length);
      this.buffer = grown;
    }
    this.length += this.buffer.write(text, this.length);
  }

  text(): string {
    return this.buffer.toString("utf8", 0, this.length);
  }

  reset(): void {
    this.length = 0;
  }
}

/**
 * `initial_pool_size` contexts are allocated up front. Under load more are created; on release a
 * context is kept while the pool holds fewer than `retain` idle ones, so memory follows the knob
 * and the concurrency actually reached, not every request ever served.
 */
export class ContextPool {
  private readonly idle: RequestContext[] = [];
  private retain: number;
  inUse = 0;

  constructor(initialSize: number, retain: number) {
    this.retain = Math.max(initialSize, retain);
    this.resize(initialSize, retain);
  }

  get idleCount(): number {
    return this.idle.length;
  }

  acquire(): RequestContext {
    this.inUse++;
    return this.idle.pop() ?? new RequestContext();
  }

  release(context: RequestContext): void {
    this.inUse--;
    context.reset();
    if (this.idle.length < this.retain) this.idle.push(context);
  }

  /** Grow the idle set to `initialSize`, or trim it when the knob went down. */
  resize(initialSize: number, retain: number): void {
    this.retain = Math.max(initialSize, retain);
    while (this.idle.length + this.inUse < initialSize) this.idle.push(new RequestContext());
    if (this.idle.length > this.retain) this.idle.length = this.retain;
  }
}
