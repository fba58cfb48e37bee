// Which documents a sweep examines per rule: those the planners' filters say may break the
// rule (the same filters the change stream applies to events), overfilled overflow chunks,
// and every product that has entries in a full set (a review written straight into
// `reviews` while no stream watched leaves no trace on the product).
import type { Db, Document } from "mongodb";
import type { Rule } from "../config.js";
import { needsCorrectionFilter, overfilledChunkFilter } from "./watch-pipeline.js";
import type { CorrectionTarget } from "./targets.js";

// The filters are written over change events; dressing each document as an update event
// with its fullDocument lets the very same filter run over the collection.
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

async function* idsMatching(db: Db, collection: string, eventFilter: Document): AsyncGenerator<unknown> {
  const cursor = db
    .collection(collection)
    .aggregate<{ _id: unknown }>([
      asChangeEvent(db, collection),
      { $match: eventFilter },
      { $project: { _id: "$documentKey._id" } },
    ]);
  for await (const doc of cursor) yield doc._id;
}

async function* referencedIds(db: Db, collection: string, referenceField: string): AsyncGenerator<unknown> {
  const cursor = db
    .collection(collection)
    .aggregate<{ _id: unknown }>([
      { $group: { _id: `$${referenceField}` } },
      { $match: { _id: { $ne: null } } },
    ]);
  for await (const doc of cursor) yield doc._id;
}

export async function* sweepCandidates(db: Db, rule: Rule): AsyncGenerator<CorrectionTarget> {
  switch (rule.pattern) {
    case "outlier":
      for await (const id of idsMatching(db, rule.collection, needsCorrectionFilter(rule)))
        yield { role: "outlier-source", rule, collection: rule.collection, id };
      for await (const id of idsMatching(db, rule.overflowCollection, overfilledChunkFilter(rule)))
        yield { role: "outlier-chunk", rule, collection: rule.overflowCollection, id };
      return;
    case "bucket":
      for await (const id of idsMatching(db, rule.collection, needsCorrectionFilter(rule)))
        yield { role: "bucket", rule, collection: rule.collection, id };
      return;
    case "subset":
      for await (const id of idsMatching(db, rule.collection, needsCorrectionFilter(rule)))
        yield { role: "subset-source", rule, collection: rule.collection, id };
      for await (const id of referencedIds(db, rule.fullSetCollection, rule.referenceField))
        yield { role: "subset-source", rule, collection: rule.collection, id };
      return;
  }
}

/** Rough size of a rule's sweep, for the progress gauge and log line. */
export async function estimateSweepSize(db: Db, rule: Rule): Promise<number> {
  const collections =
    rule.pattern === "outlier"
      ? [rule.collection, rule.overflowCollection]
      : rule.pattern === "subset"
        ? [rule.collection, rule.fullSetCollection]
        : [rule.collection];
  const counts = await Promise.all(collections.map((name) => db.collection(name).estimatedDocumentCount()));
  return counts.reduce((sum, count) => sum + count, 0);
}
