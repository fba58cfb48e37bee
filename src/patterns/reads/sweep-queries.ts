// The queries sweeps find candidates with, one page at a time. The drivers' event filters
// are written over change events; dressing each document as an update event with its
// fullDocument lets the very same filter run over a collection.
import type { Db, Document, FindOptions } from "mongodb";
import type { CorrectionTarget, PatternRule, SweepSource } from "../driver.js";
import { keyRangesAfter, keysAfter } from "../bson/key-order.js";

function asChangeEvent(db: Db, collection: string): Document {
  return {
    $replaceRoot: {
      newRoot: {
        operationType: "update",
        ns: { db: db.databaseName, coll: collection },
        documentKey: { _id: "$_id" },
        fullDocument: "$$ROOT",
      },
    },
  };
}

/**
 * Up to `limit` values of `field` after `after` in index order, from the first of the
 * ranges after it that has any; none when nothing lies after `after`. `batchSize` is the
 * limit, so that the first reply holds them all and no cursor stays open.
 */
async function nextKeys(
  db: Db,
  collection: string,
  field: string,
  ranges: Document[],
  limit: number,
): Promise<unknown[]> {
  for (const range of ranges) {
    const { filter, options } = keysQuery(field, range, limit);
    const found = await db.collection(collection).find(filter, options).toArray();
    if (found.length > 0) return found.map((doc) => doc[field] as unknown);
  }
  return [];
}

/** The first `limit` values of `field` in `range`: sorted and covered by an index starting with it. */
export function keysQuery(
  field: string,
  range: Document,
  limit: number,
): { filter: Document; options: FindOptions } {
  const projection = field === "_id" ? { _id: 1 } : { _id: 0, [field]: 1 };
  return { filter: range, options: { sort: { [field]: 1 }, limit, batchSize: limit, projection } };
}

/** Keys per query when counting candidates: one short command each, as for the sweep's pages. */
const COUNT_PAGE = 5000;

/**
 * The next `limit` `_id`s after `after` (from the `_id` index alone), and those of their
 * documents that, written now, would pass `eventFilter`.
 */
async function matchingPage(
  db: Db,
  collection: string,
  eventFilter: Document,
  after: unknown,
  limit: number,
): Promise<{ ids: unknown[]; matching: unknown[] }> {
  const ranges = after === undefined ? [{}] : keyRangesAfter("_id", after);
  const ids = await nextKeys(db, collection, "_id", ranges, limit);
  if (ids.length === 0) return { ids, matching: [] };
  const matching = await db
    .collection(collection)
    .aggregate<{ _id: unknown }>(
      [
        { $match: { _id: { $in: ids } } },
        asChangeEvent(db, collection),
        { $match: eventFilter },
        { $project: { _id: "$documentKey._id" } },
      ],
      { batchSize: limit },
    )
    .toArray();
  return { ids, matching: matching.map((doc) => doc._id) };
}

/**
 * The documents of `collection` that, written now, would pass `eventFilter`, in `_id` order.
 * A page examines `limit` documents however few of them match. Counting them reads the
 * same way, in pages, so that no single command scans the whole collection.
 */
export function documentsMatching<R extends PatternRule>(
  name: string,
  collection: string,
  eventFilter: Document,
  targetOf: (id: unknown) => CorrectionTarget<R>,
): SweepSource<R> {
  return {
    name,
    async page(db, after, limit) {
      const { ids, matching } = await matchingPage(db, collection, eventFilter, after, limit);
      return { targets: matching.map(targetOf), lastKey: ids.at(-1), done: ids.length === 0 };
    },
    async count(db, after) {
      let counted = 0;
      for (let from = after; ;) {
        const { ids, matching } = await matchingPage(db, collection, eventFilter, from, COUNT_PAGE);
        if (ids.length === 0) return counted;
        counted += matching.length;
        from = ids.at(-1);
      }
    },
  };
}

/**
 * Each distinct non-null `referenceField` of `collection`, walked through an index that
 * starts with it: each step asks for the first key after the last one (limit 1, covered),
 * so it examines a few index keys whatever the number of documents per value.
 * `referencedCollection` holds one document per referenced `_id`: the count of those after
 * the key reached is the estimate of what is left.
 */
export function distinctReferences<R extends PatternRule>(
  name: string,
  collection: string,
  referenceField: string,
  referencedCollection: string,
  targetOf: (id: unknown) => CorrectionTarget<R>,
): SweepSource<R> {
  return {
    name,
    async page(db, after, limit) {
      const targets: CorrectionTarget<R>[] = [];
      let last = after;
      for (let step = 0; step < limit; step += 1) {
        const [next] = await nextKeys(
          db,
          collection,
          referenceField,
          keyRangesAfter(referenceField, last),
          1,
        );
        if (next === undefined) return { targets, lastKey: last, done: true };
        targets.push(targetOf(next));
        last = next;
      }
      return { targets, lastKey: last, done: false };
    },
    count: (db, after) =>
      after === undefined
        ? db.collection(referencedCollection).estimatedDocumentCount()
        : db.collection(referencedCollection).countDocuments(keysAfter("_id", after)),
  };
}
