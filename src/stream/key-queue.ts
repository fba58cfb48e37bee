// Runs tasks with bounded concurrency, but strictly one after another for the same key:
// two events about one document must be corrected in the order the stream delivered them,
// events about different documents need not wait for each other.

type Task = () => Promise<void>;

export class KeyedTaskQueue {
  private readonly waitingByKey = new Map<string, Task[]>();
  /** Keys whose next task may start, in the order they became ready. */
  private readonly readyKeys: string[] = [];
  private readonly busyKeys = new Set<string>();
  private running = 0;
  private size = 0;
  private sizeWatchers: { limit: number; resolve: () => void }[] = [];

  constructor(private readonly concurrency: number) {
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
    }
  }

  /** Tasks queued or running. */
  get pending(): number {
    return this.size;
  }

  /** Queues `task` behind every earlier task of `key`; settles with the task's outcome. */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const wrapped: Task = () => task().then(resolve, reject);
      const waiting = this.waitingByKey.get(key);
      if (waiting) waiting.push(wrapped);
      else {
        this.waitingByKey.set(key, [wrapped]);
        if (!this.busyKeys.has(key)) this.readyKeys.push(key);
      }
      this.size += 1;
      this.startReadyTasks();
    });
  }

  /** Resolves once fewer than `limit` tasks are queued or running (back-pressure for the reader). */
  whenBelow(limit: number): Promise<void> {
    if (this.size < limit) return Promise.resolve();
    return new Promise((resolve) => this.sizeWatchers.push({ limit, resolve }));
  }

  /** Resolves when nothing is queued or running. */
  idle(): Promise<void> {
    return this.whenBelow(1);
  }

  private startReadyTasks(): void {
    while (this.running < this.concurrency && this.readyKeys.length > 0) {
      const key = this.readyKeys.shift()!;
      this.startNext(key);
    }
  }

  private startNext(key: string): void {
    const waiting = this.waitingByKey.get(key)!;
    const task = waiting.shift()!;
    if (waiting.length === 0) this.waitingByKey.delete(key);
    this.busyKeys.add(key);
    this.running += 1;
    void task().finally(() => this.finish(key));
  }

  private finish(key: string): void {
    this.running -= 1;
    this.size -= 1;
    this.busyKeys.delete(key);
    if (this.waitingByKey.has(key)) this.readyKeys.push(key);
    this.startReadyTasks();
    this.notifySizeWatchers();
  }

  private notifySizeWatchers(): void {
    const stillWaiting = [];
    for (const watcher of this.sizeWatchers) {
      if (this.size < watcher.limit) watcher.resolve();
      else stillWaiting.push(watcher);
    }
    this.sizeWatchers = stillWaiting;
  }
}
