// Runs tasks with bounded concurrency, but strictly one after another for the same key:
// two events about one document must be corrected in the order the stream delivered them,
// events about different documents need not wait for each other. A correction re-reads its
// document, so one that has not started yet also covers any later event of that document:
// `runOrJoin` shares it instead of queuing another (a burst of events, such as the echoes of
// the sidecar's own copies into a full-set collection, costs one more correction, not one each).
// A task queued with `run` is never joined and joins nothing: it is for a task carrying what
// no other task of its key does (the propagation of a delete). A later `runOrJoin` may still
// join a task waiting *before* such a task, and is then served before it: sound when, as in
// the sidecar, every task of the key (the `run` one too) redoes all its work from a fresh read.

/** A queued task, and how it is told it will never run (KeyedTaskQueue.abandon). */
interface Task {
  run: () => Promise<void>;
  cancel: (reason: Error) => void;
}

/** The outcome of a task the queue dropped before it started (KeyedTaskQueue.abandon). */
export class TaskAbandonedError extends Error {
  override readonly name = "TaskAbandonedError";
}

export class KeyedTaskQueue {
  private readonly waitingByKey = new Map<string, Task[]>();
  /** Keys whose next task may start, in the order they became ready. */
  private readonly readyKeys: string[] = [];
  private readonly busyKeys = new Set<string>();
  /** Per key, a task queued by runOrJoin that has not started, its outcome, and who to tell of a join. */
  private readonly joinableByKey = new Map<
    string,
    { task: Task; outcome: Promise<unknown>; onJoined: (() => void) | undefined }
  >();
  private running = 0;
  private size = 0;
  private abandonedWith: TaskAbandonedError | undefined;
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
    return this.enqueue(key, task);
  }

  /**
   * Like run, but while a task of `key` queued by runOrJoin waits to start, settles with that
   * task's outcome instead of queuing `task`: for tasks that each redo all the work of their key.
   * The waiting task's `onJoined` is called each time another joins it.
   */
  runOrJoin<T>(key: string, task: () => Promise<T>, onJoined?: () => void): Promise<T> {
    const waiting = this.joinableByKey.get(key);
    if (waiting) {
      waiting.onJoined?.();
      return waiting.outcome as Promise<T>;
    }
    return this.enqueue(key, task, { onJoined });
  }

  private enqueue<T>(
    key: string,
    task: () => Promise<T>,
    joinable?: { onJoined: (() => void) | undefined },
  ): Promise<T> {
    if (this.abandonedWith) return Promise.reject(this.abandonedWith);
    let wrapped!: Task;
    const outcome = new Promise<T>((resolve, reject) => {
      wrapped = { run: () => task().then(resolve, reject), cancel: reject };
    });
    // Registered before anything starts: a task that starts at once must not stay joinable.
    if (joinable) this.joinableByKey.set(key, { task: wrapped, outcome, onJoined: joinable.onJoined });
    const waiting = this.waitingByKey.get(key);
    if (waiting) waiting.push(wrapped);
    else {
      this.waitingByKey.set(key, [wrapped]);
      if (!this.busyKeys.has(key)) this.readyKeys.push(key);
    }
    this.size += 1;
    this.startReadyTasks();
    return outcome;
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

  /**
   * Drops every task not started yet, and every one queued from now on: each settles with a
   * TaskAbandonedError. Those running finish; idle() then resolves once they have.
   */
  abandon(reason: string): void {
    this.abandonedWith ??= new TaskAbandonedError(reason);
    for (const waiting of this.waitingByKey.values())
      for (const task of waiting) {
        task.cancel(this.abandonedWith);
        this.size -= 1;
      }
    this.waitingByKey.clear();
    this.joinableByKey.clear();
    this.readyKeys.length = 0;
    this.notifySizeWatchers();
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
    if (this.joinableByKey.get(key)?.task === task) this.joinableByKey.delete(key);
    this.busyKeys.add(key);
    this.running += 1;
    void task.run().finally(() => this.finish(key));
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
