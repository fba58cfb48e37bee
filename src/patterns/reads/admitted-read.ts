// Reads of documents that may be near 16 MiB, decoded only once the corrections' memory
// budget admits them (PlanContext.budget; docs/deployment.md#container-image).
import type { Collection, Document } from "mongodb";
import { BatchOverBudgetError } from "../../errors.js";
import type { ReadContext } from "../driver.js";
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
 * The documents of `collection` that `filter` matches, at most `count` of them, read by
 * `read` with RAW and decoded by `verbatim` once the budget has admitted their BSON size.
 * Where they might have to wait (`count` documents of 16 MiB would not fit now), their size
 * is asked first and the bytes are read once admitted: a waiting correction would otherwise
 * hold up to 16 MiB per document. A batch (`count` over 1) always asks first, and one that
 * the whole budget could not hold is refused (BatchOverBudgetError): split into single
 * corrections, of which only one larger than the whole budget goes alone (memory-budget.ts).
 */
export async function readAdmitted(
  collection: Collection,
  filter: Document,
  count: number,
  read: () => Promise<readonly unknown[]>,
  reads: ReadContext,
): Promise<Document[]> {
  const { budget } = reads;
  let admitted = 0;
  if (budget && (count > 1 || !budget.admitsDocuments(count))) {
    admitted = await sizeOnServer(collection, filter, reads);
    if (count > 1 && !budget.holdsWithin(admitted))
      throw new BatchOverBudgetError(
        `a batch of ${count} documents needs ${admitted} bytes, more than the memory budget holds`,
        { bytes: admitted, documents: count },
      );
    if (admitted > 0) await budget.admit(admitted);
  }
  const raws = await read();
  // What the read adds (a joined field; outside a transaction, a document grown since) is
  // admitted without waiting, by a hold that holds something already.
  const more = bsonSize(raws) - admitted;
  if (budget && more > 0) await budget.admit(more);
  return raws.map(verbatim);
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
    () => collection.find(filter as never, { session: reads.session, ...RAW }).toArray(),
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
    async () => {
      const raw: unknown = await collection.findOne(filter as never, { session: reads.session, ...RAW });
      return raw === null ? [] : [raw];
    },
    reads,
  );
  return doc ?? null;
}
