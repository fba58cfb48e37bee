// The copy ledger: one small document in the state collection for every entry the sidecar
// copies into a full set, written in the copy's own transaction:
// `{_id: {copied: <the copy's _id>}, rule, source, entry, copiedAt}`. It tells the
// sidecar's copies apart from documents an application wrote: a delete propagated later
// undoes a copy the sidecar made after that delete (a copy-back of an entry still embedded)
// and keeps an application's re-insert. `copiedAt` is the server's clock ($currentDate), so
// that the stream can prune entries by the cluster time it has processed
// (src/stream/copy-ledger-pruning.ts).
import type { Document } from "mongodb";
import type { Write } from "../plan.js";

/** Where copies are recorded, and how a copy's `_id` is chosen (before the copy, so the ledger can name it). */
export interface CopyLedger {
  collection: string;
  newId: () => unknown;
}

/** The field pruning reads; indexed in the state collection (src/stream/collections.ts). */
export const COPIED_AT = "copiedAt";

export function ledgerId(copyId: unknown): Document {
  return { copied: copyId };
}

/** What a copy records: which rule made it, for which source document, of which entry. */
export interface CopyRecord {
  rule: string;
  source: unknown;
  entry: unknown;
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
