// The records the sidecar keeps of its own writes in its state collection (the copy ledger,
// subset/copy-ledger.ts). A plan names each with a `record` write; the records of one
// transaction are stored together, `{_id, records: [...], recordedAt}` (`recordedAt` by the
// server's clock), rather than a document each: in a backlog of product corrections, a
// ledger document per copy was a third of the documents written, and dropping those writes
// took a fifth of the embedded server's CPU per correction. A records document is written
// once, by its own transaction, and then only read or pruned: a later change of its records
// is a new record (a copy undone, copy-ledger.ts), since transactions correcting at once
// would conflict on any document of records they shared.
import { BSON, ObjectId, type Document } from "mongodb";
import type { PlannedWrite, Write } from "./plan.js";

/** The array of a transaction's records. */
export const RECORDS = "records";
/** When they were written, by the server's clock ($currentDate): what pruning reads. */
export const RECORDED_AT = "recordedAt";

/**
 * A document of records holds at most this many bytes of them, far below the 16 MiB a
 * document may hold: a product's thousand first copies, each recording ids of any size, make
 * several documents rather than one the server refuses.
 */
export const MAX_RECORDS_BYTES = 1024 * 1024;

/**
 * `writes` with their records folded into as few documents as fit, one set per collection,
 * after the other writes (in their order). An upsert rather than an insert: only an update
 * can take the server's clock.
 */
export function foldRecords(writes: readonly PlannedWrite[]): Write[] {
  const documents: Write[] = [];
  const records = new Map<string, Document[]>();
  for (const write of writes) {
    if (write.op !== "record") documents.push(write);
    else if (records.has(write.collection)) records.get(write.collection)!.push(write.record);
    else records.set(write.collection, [write.record]);
  }
  for (const [collection, all] of records) {
    for (const chunk of bySize(all)) documents.push(recordsDocument(collection, chunk));
  }
  return documents;
}

function recordsDocument(collection: string, records: Document[]): Write {
  return {
    op: "updateOne",
    collection,
    filter: { _id: new ObjectId() },
    update: { $set: { [RECORDS]: records }, $currentDate: { [RECORDED_AT]: true } },
    upsert: true,
  };
}

/** `records` in runs of at most MAX_RECORDS_BYTES each (a larger record alone). */
function bySize(records: Document[]): Document[][] {
  const chunks: Document[][] = [];
  let chunk: Document[] = [];
  let bytes = 0;
  for (const record of records) {
    const size = BSON.calculateObjectSize(record);
    if (chunk.length > 0 && bytes + size > MAX_RECORDS_BYTES) {
      chunks.push(chunk);
      [chunk, bytes] = [[], 0];
    }
    chunk.push(record);
    bytes += size;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}
