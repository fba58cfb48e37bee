// Reads of documents that may be near 16 MiB, decoded only once the corrections' memory
// budget admits them (PlanContext.budget; docs/deployment.md#container-image).
import type { Collection, Document } from "mongodb";
import { BatchOverBudgetError } from "../../errors.js";
import type { ReadBudget, ReadContext } from "../driver.js";
import { numberValue, RAW, verbatim } from "../bson/bson-value.js";

function bsonSize(raws: readonly unknown[]): number {
  return raws.reduce<number>((sum, raw) => sum + (raw as Uint8Array).byteLength, 0);
}

/** The BSON size of the documents `filter` matches, as the server measures them: a few bytes to read. */
async function sizeOnServer(
  collection: Collection,
  filter: Document,
  { session }: ReadContext,
): Promise<number> {
  const [sized] = await collection
    .aggregate([{ $match: filter }, { $group: { _id: null, bytes: { $sum: { $bsonSize: "$$ROOT" } } } }], {
      session,
    })
    .toArray();
  return numberValue(sized?.bytes) ?? 0;
}

/**
 * A batch reads at once its documents of at most this size: before the budget is asked, they
 * weigh at most this much each (a megabyte for a batch of 64), plus what the read joins to them
 * (a last chunk, a product's newest reviews), which was always read before it was admitted.
 */
export const SMALL_DOCUMENT_BYTES = 16 * 1024;

/** What a single document read before the budget is asked may weigh: what a batch of 64 may. */
export const SMALL_SINGLE_DOCUMENT_BYTES = 64 * SMALL_DOCUMENT_BYTES;

/** `filter`, narrowed to the documents whose BSON size is at most (or over) `bytes`. */
function bySize(filter: Document, comparison: "$lte" | "$gt", bytes: number): Document {
  return { $and: [filter, { $expr: { [comparison]: [{ $bsonSize: "$$ROOT" }, bytes] } }] };
}

/**
 * The documents of `collection` that `filter` matches, at most `count` of them, read by
 * `read` (given the filter to read by) with RAW and decoded by `verbatim` once the budget has
 * admitted their BSON size. A single document the budget would take whatever its size (up to
 * 16 MiB) is read at once. Otherwise the documents are first read only if small (at most
 * SMALL_DOCUMENT_BYTES each in a batch, SMALL_SINGLE_DOCUMENT_BYTES alone) in one command, and
 * kept when they are all it asked for and the budget takes them at once; otherwise (a document
 * larger, or missing, or a budget that would make it wait) they are dropped, and the size of
 * them all is asked first (readAskingFirst): a waiting correction would otherwise hold up to
 * 16 MiB per document.
 */
export async function readAdmitted(
  collection: Collection,
  filter: Document,
  count: number,
  read: (filter: Document) => Promise<readonly unknown[]>,
  reads: ReadContext,
): Promise<Document[]> {
  const { budget } = reads;
  if (!budget) return (await read(filter)).map(verbatim);
  // While other corrections hold part of the budget (the default holds one document of 16
  // MiB), asking a single document's size first cost a command per correction under load.
  if (count > 1 || !budget.admitsDocuments(count)) {
    const small = await read(
      bySize(filter, "$lte", count > 1 ? SMALL_DOCUMENT_BYTES : SMALL_SINGLE_DOCUMENT_BYTES),
    );
    const bytes = bsonSize(small);
    if (small.length === count && budget.holdsWithin(bytes) && budget.admitsBytes(bytes)) {
      await budget.admit(bytes);
      return small.map(verbatim);
    }
  }
  return (await readAskingFirst(collection, filter, count, read, reads, budget)).map(verbatim);
}

/**
 * Reads once the budget admitted the documents' size, asked first where they might have to
 * wait; a batch always asks, and one that the whole budget could not hold is refused
 * (BatchOverBudgetError): split into single corrections, of which only one larger than the
 * whole budget goes alone (memory-budget.ts).
 */
async function readAskingFirst(
  collection: Collection,
  filter: Document,
  count: number,
  read: (filter: Document) => Promise<readonly unknown[]>,
  reads: ReadContext,
  budget: ReadBudget,
): Promise<readonly unknown[]> {
  let admitted = 0;
  if (count > 1 || !budget.admitsDocuments(count)) {
    admitted = await sizeOnServer(collection, filter, reads);
    if (count > 1 && !budget.holdsWithin(admitted))
      throw new BatchOverBudgetError(
        `a batch of ${count} documents needs ${admitted} bytes, more than the memory budget holds`,
        { bytes: admitted, documents: count },
      );
    if (admitted > 0) await budget.admit(admitted);
    // In a transaction the read sees what the size did: nothing to read.
    if (admitted === 0 && reads.session) return [];
  }
  const raws = await read(filter);
  // What the read adds (a joined field; outside a transaction, a document grown since) is
  // admitted without waiting, by a hold that holds something already.
  const more = bsonSize(raws) - admitted;
  if (more > 0) await budget.admit(more);
  return raws;
}

/** The documents of `collection` with the given `_id`s (in no order), read as readAdmitted reads. */
export function readManyAdmitted(
  collection: Collection,
  ids: readonly unknown[],
  reads: ReadContext,
): Promise<Document[]> {
  const filter = { _id: { $in: ids } };
  return readAdmitted(
    collection,
    filter,
    ids.length,
    (narrowed) => collection.find(narrowed as never, { session: reads.session, ...RAW }).toArray(),
    reads,
  );
}

/** The document of `collection` with `_id`, or null, read as readAdmitted reads. */
export async function readOneAdmitted(
  collection: Collection,
  id: unknown,
  reads: ReadContext,
): Promise<Document | null> {
  const filter = { _id: id };
  const [doc] = await readAdmitted(
    collection,
    filter,
    1,
    async (narrowed) => {
      const raw: unknown = await collection.findOne(narrowed as never, { session: reads.session, ...RAW });
      return raw === null ? [] : [raw];
    },
    reads,
  );
  return doc ?? null;
}
