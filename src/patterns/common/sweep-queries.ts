// The queries sweeps find candidates with, one page at a time. The drivers' event filters
// are written over change events; dressing each document as an update event with its
// fullDocument lets the very same filter run over a collection.
import type { Db, Document } from "mongodb";
import type { CorrectionTarget, PatternRule, SweepSource } from "../driver.js";
import { keysAfter } from "./key-order.js";

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

function idsFrom(after: unknown): Document {
  return after === undefined ? {} : keysAfter("_id", after);
}

/**
 * The documents of `collection` that, written now, would pass `eventFilter`, in `_id` order.
 * A page is the next `limit` `_id`s (read from the `_id` index alone), then the ones of
 * those that match: a page examines `limit` documents however few of them match.
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
      const keys = await db
        .collection(collection)
        // batchSize = limit: the first reply holds the whole page, and the cursor is closed.
        .find(idsFrom(after), { sort: { _id: 1 }, limit, batchSize: limit, projection: { _id: 1 } })
        .toArray();
      if (keys.length === 0) return { targets: [], lastKey: undefined, done: true };
      const matching = await db
        .collection(collection)
        .aggregate<{ _id: unknown }>(
          [
            { $match: { _id: { $in: keys.map((key) => key._id) } } },
            asChangeEvent(db, collection),
            { $match: eventFilter },
            { $project: { _id: "$documentKey._id" } },
          ],
          { batchSize: limit },
        )
        .toArray();
      return {
        targets: matching.map((doc) => targetOf(doc._id)),
        lastKey: keys[keys.length - 1]?._id,
        done: keys.length < limit,
      };
    },
    async count(db, after) {
      const [counted] = await db
        .collection(collection)
        .aggregate<{ n: number }>([
          { $match: idsFrom(after) },
          asChangeEvent(db, collection),
          { $match: eventFilter },
          { $count: "n" },
        ])
        .toArray();
      return counted?.n ?? 0;
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
        const next = await nextReference(db, collection, referenceField, last);
        if (next === undefined) return { targets, lastKey: last, done: true };
        targets.push(targetOf(next));
        last = next;
      }
      return { targets, lastKey: last, done: false };
    },
    count: (db, after) => db.collection(referencedCollection).countDocuments(idsFrom(after)),
  };
}

/** The smallest `referenceField` after `after`, from the index that starts with it. */
export async function nextReference(
  db: Db,
  collection: string,
  referenceField: string,
  after: unknown,
): Promise<unknown> {
  const found = await db.collection(collection).findOne(keysAfter(referenceField, after), {
    sort: { [referenceField]: 1 },
    projection: { _id: 0, [referenceField]: 1 },
  });
  return found?.[referenceField];
}
