// The copy ledger: a record `{copied: <the copy's _id>, rule, source, entry}` for every entry
// the sidecar copies into a full set, written in the copy's own transaction, in the state
// collection (with the transaction's other records: records.ts). It tells the sidecar's
// copies apart from documents an application wrote: a delete propagated later undoes a copy
// the sidecar made after that delete (a copy-back of an entry still embedded) and keeps an
// application's re-insert. Records are stamped with the server's clock, so that the stream
// can prune them by the cluster time it has processed (pruneCopyLedger). A copy undone is
// recorded undone, `{copied, undone: true}`, in the undoing transaction's own document: a
// transaction never rewrites another's, which two corrections undoing copies of one earlier
// transaction at once would conflict on (the second aborted, its batch redone one by one).
//
// Versions before records were shared kept a document per copy,
// `{_id: {copied: <the copy's _id>}, rule, source, entry, copiedAt}`: those are still read,
// undone and pruned here (LEGACY_*), for the five minutes after an upgrade they can matter.
import type { ClientSession, Db, Document } from "mongodb";
import { bsonKey, RAW, verbatim } from "../bson/bson-value.js";
import type { IndexWanted } from "../driver.js";
import type { PlannedWrite, RecordWrite } from "../plan.js";
import { RECORDED_AT, RECORDS } from "../records.js";

/** Where copies are recorded, and how a copy's `_id` is chosen (before the copy, so the ledger can name it). */
export interface CopyLedger {
  collection: string;
  newId: () => unknown;
}

/** What a copy records: which rule made it, for which source document, of which entry. */
export interface CopyRecord {
  rule: string;
  source: unknown;
  entry: unknown;
}

/** A copy the ledger names, and how it was recorded. */
export interface LedgeredCopy extends CopyRecord {
  copied: unknown;
  /** Recorded in a document of its own (LEGACY_COPIED_AT), `{_id: {copied}}`. */
  legacy?: true;
}

const COPIED = "copied";
/** Marks the record of a copy undone: `{copied, undone: true}`, with no rule, which earlier versions skip. */
const UNDONE = "undone";
/** The per-copy documents' stamp, an earlier version's `recordedAt`. */
const LEGACY_COPIED_AT = "copiedAt";

/**
 * How far before the processed cluster time an entry must have been copied to be pruned.
 * The stamp is the primary's wall clock, a cluster time counts whole seconds and may run
 * ahead of it (gossip from a member whose clock is ahead), and after a failover the new
 * primary's clock may lag: the margin covers the difference. An entry pruned too early would
 * only let one copy-back survive, the behaviour without propagation.
 */
export const PRUNE_MARGIN_SECONDS = 300;

// Not sparse: a planner may skip a sparse index (the embedded server always does), and the
// state collection's other documents are few.
export function copyLedgerIndexes(stateCollection: string): IndexWanted[] {
  return [
    { collection: stateCollection, keys: { [`${RECORDS}.${COPIED}`]: 1 } },
    { collection: stateCollection, keys: { [RECORDED_AT]: 1 } },
    { collection: stateCollection, keys: { [LEGACY_COPIED_AT]: 1 }, options: { sparse: true } },
  ];
}

/**
 * An entry is needed only until the delete its copy may have to undo has been processed, and
 * a copy-back is made after that delete: once every event up to `processedSeconds` has been
 * processed, an entry copied before it (less the margin) concerns no delete still to come.
 * Every record in the state collection is the ledger's (records.ts).
 */
export async function pruneCopyLedger(
  db: Db,
  stateCollection: string,
  processedSeconds: number,
): Promise<number> {
  const before = { $lt: new Date((processedSeconds - PRUNE_MARGIN_SECONDS) * 1000) };
  const state = db.collection(stateCollection);
  // One delete per index, so that mongod serves each by its own (the embedded server plans on
  // no sparse index: the legacy one is a scan there, as pruning was before records).
  const pruned = await state.deleteMany({ [RECORDED_AT]: before });
  const legacy = await state.deleteMany({ [LEGACY_COPIED_AT]: before });
  return pruned.deletedCount + legacy.deletedCount;
}

export function recordCopy(ledger: CopyLedger, copyId: unknown, record: CopyRecord): RecordWrite {
  return { op: "record", collection: ledger.collection, record: { [COPIED]: copyId, ...record } };
}

/**
 * Records the copy undone (it is deleted in the same transaction): its record is left as it
 * is, in the document of the transaction that copied it. An earlier version's document per
 * copy is deleted, as it holds nothing else.
 */
export function forgetCopy(ledgerCollection: string, copy: LedgeredCopy): PlannedWrite {
  if (copy.legacy) {
    return { op: "deleteOne", collection: ledgerCollection, filter: { _id: { [COPIED]: copy.copied } } };
  }
  return { op: "record", collection: ledgerCollection, record: { [COPIED]: copy.copied, [UNDONE]: true } };
}

/** The copies among `copyIds` that the ledger names for `rule`, in one query. */
export async function findCopies(
  db: Db,
  ledgerCollection: string,
  copyIds: readonly unknown[],
  rule: string,
  session?: ClientSession,
): Promise<LedgeredCopy[]> {
  if (copyIds.length === 0) return [];
  const wanted = new Set(copyIds.map(bsonKey));
  const found = await db
    .collection(ledgerCollection)
    .find(
      {
        $or: [
          { [`${RECORDS}.${COPIED}`]: { $in: copyIds } },
          { _id: { $in: copyIds.map((id) => ({ [COPIED]: id })) } },
        ],
      } as never,
      { session, ...RAW },
    )
    .toArray();
  return ledgeredCopies(found.map(verbatim)).filter(
    (copy) => copy.rule === rule && wanted.has(bsonKey(copy.copied)),
  );
}

/** What the copy `copyId` made by rule `rule` recorded, if the ledger still holds it. */
export async function readCopyRecord(
  db: Db,
  ledgerCollection: string,
  copyId: unknown,
  rule: string,
  session?: ClientSession,
): Promise<CopyRecord | null> {
  return (await findCopies(db, ledgerCollection, [copyId], rule, session))[0] ?? null;
}

/** The copies the ledger documents `documents` name: every one recorded, less those recorded undone. */
export function ledgeredCopies(documents: readonly Document[]): LedgeredCopy[] {
  const undone = new Set(
    documents
      .flatMap(recordsIn)
      .flatMap((record) => (record[UNDONE] === true ? [bsonKey(record[COPIED])] : [])),
  );
  return documents.flatMap(copiesIn).filter((copy) => !undone.has(bsonKey(copy.copied)));
}

/** A ledger document's records (none for an earlier version's document per copy). */
function recordsIn(document: Document): Document[] {
  const records: unknown = document[RECORDS];
  return Array.isArray(records) ? (records as Document[]) : [];
}

/** The copies a ledger document records, undone or not: its records' copies, or itself (legacy). */
function copiesIn(document: Document): LedgeredCopy[] {
  if (Array.isArray(document[RECORDS])) {
    return recordsIn(document)
      .filter((record) => record[UNDONE] !== true)
      .map(({ [COPIED]: copied, rule, source, entry }) => ({ copied, rule: rule as string, source, entry }));
  }
  const { _id, rule, source, entry } = document;
  return [{ copied: (_id as Document)[COPIED], rule, source, entry, legacy: true }];
}
