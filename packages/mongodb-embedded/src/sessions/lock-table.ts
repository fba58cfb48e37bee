// What open transactions hold until they end: the documents they wrote, and the unique-index
// keys their writes added. mongod holds both as write locks: another transaction writing one
// gets WriteConflict, and a write outside any transaction waits for it (unique-key-locks.ts).
import type { SecondaryIndex } from "../storage/secondary-index.js";
import type { StoredCollection } from "../storage/stored-collection.js";
import type { Transaction } from "./transaction.js";

/** Where a lock's key lives: a collection's document keys, or a unique index's keys. */
export type LockSpace = StoredCollection | SecondaryIndex;

export class LockTable {
  private readonly owners = new Map<LockSpace, Map<string, Transaction>>();
  private readonly held = new Map<Transaction, [LockSpace, string][]>();

  owner(space: LockSpace, key: string): Transaction | undefined {
    const owner = this.owners.get(space)?.get(key);
    return owner?.isOpen ? owner : undefined;
  }

  lock(space: LockSpace, key: string, transaction: Transaction): void {
    let locks = this.owners.get(space);
    if (!locks) this.owners.set(space, (locks = new Map()));
    if (locks.get(key) === transaction) return;
    locks.set(key, transaction);
    let held = this.held.get(transaction);
    if (!held) this.held.set(transaction, (held = []));
    held.push([space, key]);
  }

  releaseAll(transaction: Transaction): void {
    for (const [space, key] of this.held.get(transaction) ?? []) {
      const locks = this.owners.get(space);
      if (!locks) continue;
      if (locks.get(key) === transaction) locks.delete(key);
      if (locks.size === 0) this.owners.delete(space);
    }
    this.held.delete(transaction);
  }
}
