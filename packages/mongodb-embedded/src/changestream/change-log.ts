// The change log plays the oplog's part for change streams: every committed write, in commit
// order, bounded like a capped oplog. Cursors read it by position and sleep until `append`
// wakes them (mongod's awaitData getMore waits on the oplog's capped-insert notifier).
import type { Timestamp } from "bson";
import { ErrorCode, ServerError } from "../errors.js";
import type { ChangeRecord } from "./change-record.js";
import { comparePositions, eventPosition, timestampToBigInt, type StreamPosition } from "./resume-token.js";

export interface LoggedChange {
  record: ChangeRecord;
  clusterTime: Timestamp;
  wallTime: Date;
  /** (clusterTime, txnOpIndex) of this record; kind is always "event". */
  position: StreamPosition;
}

export interface ChangeLogOptions {
  /** Keep at most this many records; older resume points are lost (ChangeStreamHistoryLost). */
  historyLimit: number;
}

export class ChangeLog {
  private readonly historyLimit: number;
  /** Retained records, oldest first; `entries[head]` is the oldest. */
  private entries: LoggedChange[] = [];
  private head = 0;
  /** Position of the newest record dropped from history, if any was. */
  private lastEvicted: StreamPosition | undefined;
  private readonly waiters = new Set<() => void>();
  private closed = false;
  /**
   * changeStreamOptions.preAndPostImages.expireAfterSeconds (setClusterParameter); undefined
   * is "off": the images go only with their records, as mongod's go with the oplog.
   */
  imagesExpireAfterSeconds: number | undefined;

  constructor(opts: ChangeLogOptions) {
    if (!Number.isInteger(opts.historyLimit) || opts.historyLimit < 1) {
      throw new RangeError(`ChangeLog historyLimit must be a positive integer, got ${opts.historyLimit}`);
    }
    this.historyLimit = opts.historyLimit;
  }

  /** Records one commit: a transaction's records share `clusterTime`, in txnOpIndex order. */
  append(records: ChangeRecord[], clusterTime: Timestamp, wallTime: Date): void {
    if (this.closed || records.length === 0) return;
    const time = timestampToBigInt(clusterTime);
    const newest = this.newestPosition();
    if (newest && newest.clusterTime >= time) {
      throw new Error(
        `change log: commit at cluster time ${clusterTime.toString()} is not after the previous commit`,
      );
    }
    records.forEach((record, txnOpIndex) => {
      this.entries.push({ record, clusterTime, wallTime, position: eventPosition(time, txnOpIndex) });
    });
    this.evictBeyondLimit();
    this.wakeWaiters();
  }

  /** Wakes every waiting cursor; they then end. Idempotent. */
  close(): void {
    this.closed = true;
    this.wakeWaiters();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * True when records after `position` have been dropped, so a stream there would miss them:
   * mongod answers ChangeStreamHistoryLost when the oplog no longer reaches the resume point.
   */
  hasLostHistoryAfter(position: StreamPosition): boolean {
    return this.lastEvicted !== undefined && comparePositions(this.lastEvicted, position) > 0;
  }

  /**
   * Whether the change's pre- and post-images are still kept. mongod removes an image once its
   * operation's wall time is `expireAfterSeconds` old, in a periodic job
   * (src/mongo/db/change_stream_pre_images_collection_manager.cpp); here it is gone at once.
   */
  imagesKept(change: LoggedChange, now = Date.now()): boolean {
    const seconds = this.imagesExpireAfterSeconds;
    return seconds === undefined || change.wallTime.getTime() > now - seconds * 1000;
  }

  /** The retained record at exactly this (clusterTime, txnOpIndex), if any. */
  recordAt(position: StreamPosition): LoggedChange | undefined {
    const index = this.firstIndexAtOrAfter(eventPosition(position.clusterTime, position.txnOpIndex));
    const found = this.entries[index];
    return found &&
      found.position.clusterTime === position.clusterTime &&
      found.position.txnOpIndex === position.txnOpIndex
      ? found
      : undefined;
  }

  /** True when the record at `position` itself, or one after it, has been dropped. */
  hasLostHistoryAtOrAfter(position: StreamPosition): boolean {
    return (
      this.lastEvicted !== undefined &&
      comparePositions(this.lastEvicted, eventPosition(position.clusterTime, position.txnOpIndex)) >= 0
    );
  }

  /**
   * The retained records from the one at `position`'s (clusterTime, txnOpIndex) on (that
   * record included, so that an invalidate following it can still be produced), at most `max`.
   */
  recordsFrom(position: StreamPosition, max = Number.POSITIVE_INFINITY): LoggedChange[] {
    const start = this.firstIndexAtOrAfter(eventPosition(position.clusterTime, position.txnOpIndex));
    return this.entries.slice(start, start + max);
  }

  /**
   * Resolves when a commit is appended, the log closes or any of `signals` aborts (at once if
   * the log is closed or a signal aborted already).
   */
  waitForAppend(signals: readonly AbortSignal[], timeoutMs: number): Promise<void> {
    if (this.closed || anyAborted(signals) || timeoutMs <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        for (const signal of signals) signal.removeEventListener("abort", finish);
        this.waiters.delete(finish);
        resolve();
      };
      const timer = setTimeout(finish, timeoutMs);
      for (const signal of signals) signal.addEventListener("abort", finish, { once: true });
      this.waiters.add(finish);
    });
  }

  private newestPosition(): StreamPosition | undefined {
    return this.entries.length > this.head ? this.entries[this.entries.length - 1]!.position : undefined;
  }

  private firstIndexAtOrAfter(position: StreamPosition): number {
    let low = this.head;
    let high = this.entries.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (comparePositions(this.entries[mid]!.position, position) < 0) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  private evictBeyondLimit(): void {
    const excess = this.entries.length - this.head - this.historyLimit;
    if (excess <= 0) return;
    this.head += excess;
    this.lastEvicted = this.entries[this.head - 1]!.position;
    // Compact now and then rather than shifting the array on every append.
    if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
  }

  private wakeWaiters(): void {
    for (const wake of [...this.waiters]) wake();
  }
}

export function anyAborted(signals: readonly AbortSignal[]): boolean {
  return signals.some((signal) => signal.aborted);
}

export function historyLost(): ServerError {
  // Deliberately without the ResumableChangeStreamError label: resuming cannot succeed.
  return new ServerError(
    ErrorCode.ChangeStreamHistoryLost,
    "ChangeStreamHistoryLost",
    "Resume of change stream was not possible, as the resume point may no longer be in the oplog.",
  );
}
