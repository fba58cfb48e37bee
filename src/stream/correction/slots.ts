// At most `size` works at once; the others wait, and start in the order they came. The runner
// gives its corrections `concurrency` slots, whatever their kind (a preview read, a
// transaction alone or shared), while many more targets may be in flight and wait here:
// waiting targets of independent corrections gather into one shared transaction (correction-batch.ts),
// so the busier the server, the larger the batches. The session pool has one per session.
export class Slots {
  private free: number;
  private readonly waiters: (() => void)[] = [];

  constructor(size: number) {
    if (!Number.isInteger(size) || size < 1)
      throw new RangeError(`slots must be a positive integer, got ${size}`);
    this.free = size;
  }

  /** Runs `work` once a slot is free, holding it until `work` settles. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free -= 1;
    else await new Promise<void>((resolve) => this.waiters.push(resolve));
    try {
      return await work();
    } finally {
      // The slot passes straight to the next waiter, so that none can be overtaken.
      const next = this.waiters.shift();
      if (next) next();
      else this.free += 1;
    }
  }
}
