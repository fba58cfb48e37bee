// The copy ledger: one small document in the state collection for every entry the sidecar
// copies into a full set, written in the copy's own transaction:
// `{_id: {copied: <the copy's _id>}, rule, source, entry, copiedAt}`. It tells the
// sidecar's copies apart from documents an application wrote: a delete propagated later
// undoes a copy the sidecar made after that delete (a copy-back of an entry still embedded)
// and keeps an application's re-insert. `copiedAt` is the server's clock ($currentDate), so
// that the stream can prune entries by the cluster time it has processed (pruneCopyLedger).
import type { ClientSession, Db, Document } from "mongodb";
import { RAW, verbatimOrNull } from "../bson/bson-value.js";
import type { IndexWanted } from "../driver.js";
import type { Write } from "../plan.js";

/** Where copies are recorded, and how a copy's `_id` is chosen (before the copy, so the ledger can name it). */
export interface CopyLedger {
  collection: string;
  newId: () => unknown;
}

/** The field pruning reads; only the ledger's documents in the state collection have it. */
const COPIED_AT = "copiedAt";

/**
 * How far before the processed cluster time an entry must have been copied to be pruned.
 * `copiedAt` is the primary's wall clock, a cluster time counts whole seconds and may run
 * ahead of it (gossip from a member whose clock is ahead), and after a failover the new
 * primary's clock may lag: the margin covers the difference. An entry pruned too early would
 * only let one copy-back survive, the behaviour without propagation.
 */
export const PRUNE_MARGIN_SECONDS = 300;

export function copyLedgerIndexes(stateCollection: string): IndexWanted[] {
  return [{ collection: stateCollection, keys: { [COPIED_AT]: 1 }, options: { sparse: true } }];
}

/**
 * An entry is needed only until the delete its copy may have to undo has been processed, and
 * a copy-back is made after that delete: once every event up to `processedSeconds` has been
 * processed, an entry copied before it (less the margin) concerns no delete still to come.
 */
export async function pruneCopyLedger(
  db: Db,
  stateCollection: string,
  processedSeconds: number,
): Promise<number> {
  const before = new Date((processedSeconds - PRUNE_MARGIN_SECONDS) * 1000);
  const { deletedCount } = await db.collection(stateCollection).deleteMany({ [COPIED_AT]: { $lt: before } });
  return deletedCount;
}

export function ledgerId(copyId: unknown): Document {
  return { copied: copyId };
}

/** What a copy records: which rule made it, for which source document, of which entry. */
export interface CopyRecord {
  rule: string;
  source: unknown;
  entry: unknown;
}

/** What the ledger recorded of the copy `copyId` made by rule `rule`, if it still holds it. */
export async function readCopyRecord(
  db: Db,
  ledgerCollection: string,
  copyId: unknown,
  rule: string,
  session?: ClientSession,
): Promise<CopyRecord | null> {
  const found = await db
    .collection(ledgerCollection)
    .findOne({ _id: ledgerId(copyId) as never, rule }, { session, ...RAW });
  return verbatimOrNull(found) as CopyRecord | null;
}

// An upsert rather than an insert: only an update can take the server's clock.
export function recordCopy(ledger: CopyLedger, copyId: unknown, record: CopyRecord): Write {
  return {
    op: "updateOne",
    collection: ledger.collection,
    filter: { _id: ledgerId(copyId) },
    update: { $set: { ...record }, $currentDate: { [COPIED_AT]: true } },
    upsert: true,
  };
}

export function forgetCopy(ledgerCollection: string, copyId: unknown): Write {
  return { op: "deleteOne", collection: ledgerCollection, filter: { _id: ledgerId(copyId) } };
}
