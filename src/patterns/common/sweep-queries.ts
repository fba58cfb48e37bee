// The queries sweeps find candidates with. The drivers' event filters are written over
// change events; dressing each document as an update event with its fullDocument lets the
// very same filter run over a collection.
import type { Db, Document } from "mongodb";

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

/** `_id`s of the documents of `collection` that, written now, would pass `eventFilter`. */
export async function* idsMatching(
  db: Db,
  collection: string,
  eventFilter: Document,
): AsyncGenerator<unknown> {
  const cursor = db
    .collection(collection)
    .aggregate<{ _id: unknown }>([
      asChangeEvent(db, collection),
      { $match: eventFilter },
      { $project: { _id: "$documentKey._id" } },
    ]);
  for await (const doc of cursor) yield doc._id;
}

/** Each distinct non-null value of `referenceField` in `collection`. */
export async function* referencedIds(
  db: Db,
  collection: string,
  referenceField: string,
): AsyncGenerator<unknown> {
  const cursor = db
    .collection(collection)
    .aggregate<{ _id: unknown }>([
      { $group: { _id: `$${referenceField}` } },
      { $match: { _id: { $ne: null } } },
    ]);
  for await (const doc of cursor) yield doc._id;
}
