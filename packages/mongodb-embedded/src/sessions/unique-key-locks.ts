// A unique index's key is a write lock for the write that adds it, as on mongod, which inserts
// the key's prefix before looking for a duplicate (WiredTigerIndex::_checkDups, mongodb/mongo).
import type { Document } from "bson";
import type { ReadView } from "../storage/read-view.js";
import type { SecondaryIndex } from "../storage/secondary-index.js";
import type { StoredCollection } from "../storage/stored-collection.js";
import type { LockTable } from "./lock-table.js";
import type { Transaction } from "./transaction.js";
import { writeConflict } from "./transaction-errors.js";

/**
 * A write outside any transaction would add a key an open transaction holds: it waits for the
 * transaction to end and runs again (then E11000 if the transaction committed the key), as
 * mongod retries such a write on its WriteConflict.
 */
export class KeyHeldByTransaction extends Error {
  constructor(readonly holder: Transaction) {
    super("a unique index key is held by an open transaction");
  }
}

/** Outside a transaction: throws KeyHeldByTransaction if `after` adds a key a transaction holds. */
export function assertAddedKeysFree(
  locks: LockTable,
  collection: StoredCollection,
  before: Document | null,
  after: Document,
): void {
  for (const [index, added] of addedKeys(collection, before, after)) {
    const owner = locks.owner(index, added);
    if (owner) throw new KeyHeldByTransaction(owner);
  }
}

/**
 * Takes for `transaction` the keys `after` (document `key`) adds over `before`. WriteConflict
 * when another open transaction holds one, or one was added since the snapshot: mongod's prefix
 * insert conflicts with both (mongodb/mongo jstests/core/txns/libs/write_conflicts.js's two
 * orders, which its unique-index transaction tests run).
 */
export function lockAddedKeys(
  locks: LockTable,
  collection: StoredCollection,
  key: string,
  before: Document | null,
  after: Document,
  transaction: Transaction,
  view: ReadView,
): void {
  for (const [index, added] of addedKeys(collection, before, after)) {
    const owner = locks.owner(index, added);
    if (owner && owner !== transaction) throw writeConflict();
    if (addedSinceSnapshot(collection, index, added, key, view)) throw writeConflict();
    locks.lock(index, added, transaction);
  }
}

function* addedKeys(
  collection: StoredCollection,
  before: Document | null,
  after: Document,
): Generator<[SecondaryIndex, string]> {
  for (const index of collection.indexes()) {
    if (!index.spec.unique) continue;
    for (const added of index.addedKeys(before, after)) yield [index, added];
  }
}

/** Whether a committed document holds `added` now but did not at the view's snapshot. */
function addedSinceSnapshot(
  collection: StoredCollection,
  index: SecondaryIndex,
  added: string,
  key: string,
  view: ReadView,
): boolean {
  const overlay = view.overlay(collection);
  for (const holder of index.holdersOf(added)) {
    // A document this transaction wrote was unchanged since its snapshot (or its write conflicted).
    if (holder === key || overlay?.has(holder)) continue;
    const seen = view.get(collection, holder);
    if (!seen || !index.holds(seen, added)) return true;
  }
  return false;
}
