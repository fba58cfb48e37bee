// A multi-document transaction: it reads the committed state as of its first operation (its
// snapshot) plus its own writes, which stay private until commit.
import type { Document } from "bson";
import type { ChangeRecord } from "../changestream/change-record.js";
import type { StoredCollection } from "../storage/stored-collection.js";

export type TransactionState = "inProgress" | "committed" | "aborted";

export class Transaction {
  state: TransactionState = "inProgress";
  /** Set at the first operation that reads or writes, as mongod takes its snapshot then. */
  snapshot: bigint | undefined;
  readonly writes = new Map<StoredCollection, Map<string, Document | null>>();
  /** The change records of the writes, in statement order, for the commit. */
  readonly records: ChangeRecord[] = [];
  /** Why the server aborted it, reported to the next operation. */
  abortReason: string | undefined;
  /** Its readConcern level, from its first statement ("local" when none is given). */
  readConcernLevel = "local";
  /** Collections it created, which exist for others only once it commits. */
  readonly createdCollections: StoredCollection[] = [];
  private readonly endWaiters: (() => void)[] = [];

  constructor(
    readonly lsid: Document,
    readonly txnNumber: bigint,
    /** When the reaper may abort it: fixed at its start, as mongod fixes its expiry date. */
    readonly expiresAt: number,
  ) {}

  get isOpen(): boolean {
    return this.state === "inProgress";
  }

  overlay(collection: StoredCollection): Map<string, Document | null> | undefined {
    return this.writes.get(collection);
  }

  stage(collection: StoredCollection, key: string, doc: Document | null, record: ChangeRecord): void {
    let overlay = this.writes.get(collection);
    if (!overlay) this.writes.set(collection, (overlay = new Map()));
    overlay.set(key, doc);
    this.records.push(record);
  }

  /** Resolves once the transaction commits or aborts. */
  ended(): Promise<void> {
    if (!this.isOpen) return Promise.resolve();
    return new Promise((resolve) => this.endWaiters.push(resolve));
  }

  finish(state: "committed" | "aborted"): void {
    this.state = state;
    for (const wake of this.endWaiters.splice(0)) wake();
  }
}
