// An unbounded FIFO with an async pull side. Producers never block; the consumer awaits `next()`.
export class AsyncQueue<T> {
  private items: T[] = [];
  private head = 0;
  private waiters: Array<(v: IteratorResult<T>) => void> = [];
  private closed = false;

  push(item: T): void {
    if (this.closed) return;
    const w = this.waiters.shift();
    if (w) w({ value: item, done: false });
    else this.items.push(item);
  }

  close(): void {
    this.closed = true;
    for (const w of this.waiters.splice(0)) w({ value: undefined, done: true });
  }

  get size(): number {
    return this.items.length - this.head;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Removes and returns every queued item (used by interrupt's cancel_queued). */
  drainAll(): T[] {
    const out = this.items.slice(this.head);
    this.items = [];
    this.head = 0;
    return out;
  }

  /** Removes and returns the items at the head for which `pred` holds, up to the first for which it does not. */
  takeWhile(pred: (item: T) => boolean): T[] {
    const out: T[] = [];
    while (this.head < this.items.length && pred(this.items[this.head] as T)) out.push(this.items[this.head++] as T);
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    }
    return out;
  }

  peekAll(): readonly T[] {
    return this.items.slice(this.head);
  }

  next(): Promise<IteratorResult<T>> {
    if (this.head < this.items.length) {
      const value = this.items[this.head] as T;
      this.head++;
      // Compact occasionally so a long-lived queue does not grow without bound.
      if (this.head > 1024 && this.head * 2 > this.items.length) {
        this.items = this.items.slice(this.head);
        this.head = 0;
      }
      return Promise.resolve({ value, done: false });
    }
    if (this.closed) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return { next: () => this.next() };
  }
}
