// Which open transaction has written which document. mongod holds such a document's write
// lock until the transaction ends: another transaction writing it gets WriteConflict, and a
// write outside any transaction waits for it.
import type { StoredCollection } from "../storage/stored-collection.js";
import type { Transaction } from "./transaction.js";

export class LockTable {
  private readonly owners = new Map<StoredCollection, Map<string, Transaction>>();

  owner(collection: StoredCollection, key: string): Transaction | undefined {
    const owner = this.owners.get(collection)?.get(key);
    return owner?.isOpen ? owner : undefined;
  }

  lock(collection: StoredCollection, key: string, transaction: Transaction): void {
    let locks = this.owners.get(collection);
    if (!locks) this.owners.set(collection, (locks = new Map()));
    locks.set(key, transaction);
  }

  releaseAll(transaction: Transaction): void {
    for (const [collection, keys] of transaction.writes) {
      const locks = this.owners.get(collection);
      if (!locks) continue;
      for (const key of keys.keys()) if (locks.get(key) === transaction) locks.delete(key);
      if (locks.size === 0) this.owners.delete(collection);
    }
  }
}
