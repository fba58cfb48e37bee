// How one command reads and writes: outside a transaction every document write commits on its
// own (as each oplog entry of a multi-update does); inside one, writes are staged privately,
// locked against other transactions, and checked against the transaction's snapshot.
import type { Document } from "bson";
import type { ChangeOperation, ChangeRecord } from "../changestream/change-record.js";
import { recordUpdate } from "../changestream/update-description.js";
import { ServerError, ErrorCode, interrupted } from "../errors.js";
import { assertValidDocument } from "../query/index.js";
import type { Catalog } from "../storage/catalog.js";
import { assertUnique } from "../storage/document-limits.js";
import { ReadView } from "../storage/read-view.js";
import type { StoredCollection } from "../storage/stored-collection.js";
import type { LockTable } from "./lock-table.js";
import type { Transaction } from "./transaction.js";
import { writeConflict } from "./transaction-errors.js";
import { assertCacheHolds } from "./cache-pressure.js";
import { assertAddedKeysFree, KeyHeldByTransaction, lockAddedKeys } from "./unique-key-locks.js";

export interface WriteHooks {
  /**
   * Runs before each write outside a transaction commits, once it passed its checks; what it
   * throws fails the statement with nothing written (a retryable write's fail point).
   */
  beforeCommit?: () => void;
  /** The command's bypassDocumentValidation: the collection's validator is not checked. */
  bypassDocumentValidation?: boolean;
  /** setParameter embeddedTransactionCacheWrites: past it a transaction's write conflicts (cache-pressure.ts). */
  cacheWrites?: number;
}

export class OperationScope {
  readonly view: ReadView;

  constructor(
    private readonly catalog: Catalog,
    private readonly locks: LockTable,
    readonly transaction: Transaction | undefined,
    /**
     * The command's maxTimeMS. Without one a write waits for a transaction's lock until the
     * transaction ends, as on mongod (its reaper bounds that at transactionLifetimeLimitSeconds).
     */
    private readonly lockWaitMS?: number,
    /** Aborts when killSessions kills the operation's session: a wait then ends with Interrupted. */
    private readonly killed?: AbortSignal,
    private readonly hooks: WriteHooks = {},
  ) {
    if (transaction && transaction.snapshot === undefined) transaction.snapshot = catalog.openSnapshot();
    this.view = transaction
      ? new ReadView(transaction.snapshot, (collection) => transaction.overlay(collection))
      : new ReadView();
  }

  /**
   * Runs `use` on what `select()` finds. Outside a transaction, when an open transaction holds
   * any of it, or a unique key `use` would add (it throws before its first write), waits for
   * that transaction to end and selects again. `use` gets the selection in the same turn as it
   * was read: no other write can commit between the read and the writes made from it, and the
   * documents are read once when nothing is held.
   */
  async whenUnlocked<S extends { key: string }, R>(
    collection: StoredCollection | undefined,
    select: () => S[],
    use: (selected: S[]) => R,
  ): Promise<R> {
    if (this.transaction) return use(select());
    const deadline = this.lockWaitMS === undefined ? undefined : Date.now() + this.lockWaitMS;
    for (;;) {
      if (this.killed?.aborted) throw interrupted();
      const attempt = this.attempt(collection, select(), use);
      if ("result" in attempt) return attempt.result;
      const { holder } = attempt;
      const remaining = deadline === undefined ? undefined : deadline - Date.now();
      if (remaining !== undefined && remaining <= 0) {
        throw new ServerError(
          ErrorCode.MaxTimeMSExpired,
          "MaxTimeMSExpired",
          `operation exceeded time limit waiting for a transaction's lock${collection ? ` on ${collection.ns}` : ""}`,
        );
      }
      await waitAtMost(holder.ended(), remaining, this.killed);
    }
  }

  /**
   * Writes one document (null = delete); `before` is the version this operation read, and
   * `wholeValuePaths` an update's paths its change event reports whole (applyLoggedUpdate).
   */
  write(
    collection: StoredCollection,
    key: string,
    before: Document | null,
    after: Document | null,
    operationType: ChangeOperation,
    wholeValuePaths?: ReadonlySet<string>,
  ): void {
    const transaction = this.transaction;
    if (after) {
      if (!this.hooks.bypassDocumentValidation) assertValidDocument(collection.options, before, after);
      if (transaction) lockAddedKeys(this.locks, collection, key, before, after, transaction, this.view);
      else assertAddedKeysFree(this.locks, collection, before, after);
      assertUnique(collection, key, after, before === null, this.view);
    }
    const record = this.changeRecord(collection, before, after, operationType, wholeValuePaths);
    if (!transaction) {
      this.hooks.beforeCommit?.();
      this.catalog.commit([{ collection, key, doc: after }], [record]);
      return;
    }
    const owner = this.locks.owner(collection, key);
    const changedSinceSnapshot = collection.lastWriteTime(key) > (transaction.snapshot ?? 0n);
    if ((owner && owner !== transaction) || changedSinceSnapshot) throw writeConflict();
    assertCacheHolds(transaction, collection, key, this.hooks.cacheWrites);
    this.locks.lock(collection, key, transaction);
    transaction.stage(collection, key, after, record);
  }

  private changeRecord(
    collection: StoredCollection,
    before: Document | null,
    after: Document | null,
    operationType: ChangeOperation,
    wholeValuePaths: ReadonlySet<string> | undefined,
  ): ChangeRecord {
    const id = (after ?? before)?._id;
    const withImages = imagesRecorded(collection);
    const record: ChangeRecord = {
      operationType,
      db: collection.db,
      coll: collection.name,
      documentKey: { _id: id },
      imagesRecorded: withImages,
    };
    // Images only where an event may carry them: kept in the change log, each would hold a
    // version of its document for as long as the log holds the change.
    if (operationType === "update" && before && after)
      record.update = recordUpdate(before, after, wholeValuePaths);
    if (after && (operationType !== "update" || withImages)) record.postImage = after;
    if (before && withImages) record.preImage = before;
    if (this.transaction) {
      record.lsid = this.transaction.lsid;
      record.txnNumber = this.transaction.txnNumber;
    }
    return record;
  }

  /**
   * Outside a transaction, throws before `use` writes anything of a statement over several
   * documents when one of `changes` adds a unique key a transaction holds (whenUnlocked then
   * waits and runs it again): the documents written before would otherwise be written twice.
   */
  assertKeysFree(collection: StoredCollection, changes: { before: Document; after: Document }[]): void {
    if (this.transaction) return;
    for (const { before, after } of changes) assertAddedKeysFree(this.locks, collection, before, after);
  }

  private attempt<S extends { key: string }, R>(
    collection: StoredCollection | undefined,
    selected: S[],
    use: (selected: S[]) => R,
  ): { result: R } | { holder: Transaction } {
    const holder = collection && this.firstLockHolder(collection, selected);
    if (holder) return { holder };
    try {
      return { result: use(selected) };
    } catch (error) {
      if (error instanceof KeyHeldByTransaction) return { holder: error.holder };
      throw error;
    }
  }

  private firstLockHolder(
    collection: StoredCollection,
    selected: { key: string }[],
  ): Transaction | undefined {
    for (const { key } of selected) {
      const owner = this.locks.owner(collection, key);
      if (owner) return owner;
    }
    return undefined;
  }
}

export function imagesRecorded(collection: StoredCollection): boolean {
  const option = collection.options.changeStreamPreAndPostImages as Document | undefined;
  return option?.enabled === true;
}

/** Resolves when `promise` does, after `ms` (if given), or when `killed` aborts. */
function waitAtMost(
  promise: Promise<void>,
  ms: number | undefined,
  killed: AbortSignal | undefined,
): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      killed?.removeEventListener("abort", done);
      resolve();
    };
    const timer = ms === undefined ? undefined : setTimeout(done, ms);
    killed?.addEventListener("abort", done, { once: true });
    void promise.then(done);
  });
}
