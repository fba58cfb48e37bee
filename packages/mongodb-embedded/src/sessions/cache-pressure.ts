// WiredTiger's cache pressure on a large transaction, modelled by a count: mongod aborts "an
// uncommitted transaction that causes excessive pressure on the WiredTiger cache" with a write
// conflict (docs: core/transactions-production-consideration, "Cache"), and the retry meets the
// same pressure. setParameter embeddedTransactionCacheWrites (0: off) is this server's own.
import type { StoredCollection } from "../storage/stored-collection.js";
import type { Transaction } from "./transaction.js";
import { writeConflict } from "./transaction-errors.js";

/** Throws WriteConflict when writing `key` would take `transaction` past `limit` documents. */
export function assertCacheHolds(
  transaction: Transaction,
  collection: StoredCollection,
  key: string,
  limit: number | undefined,
): void {
  if (limit === undefined || transaction.overlay(collection)?.has(key)) return;
  let written = 0;
  for (const overlay of transaction.writes.values()) written += overlay.size;
  if (written >= limit) throw writeConflict();
}
