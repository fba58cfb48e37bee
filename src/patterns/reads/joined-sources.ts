// The sources of a batch by `_id`, each with what one $lookup joins to it, in one command:
// the batched readers of the outlier and subset patterns (their last chunks, their newest
// full-set entries) share it.
import type { Db, Document } from "mongodb";
import type { ReadContext } from "../driver.js";
import { readAdmitted } from "./admitted-read.js";
import { bsonKey, RAW } from "../bson/bson-value.js";

/**
 * Each source with `lookup`'s join under `lookup.as`, in the order of `sourceIds`; null for a
 * source that does not exist. The sources enter the memory budget by their size before they
 * are read, what the join adds once read (admitted-read.ts). A null `_id`'s join also takes
 * the documents that lack the reference field: callers read those apart.
 */
export async function readJoinedSources(
  db: Db,
  collection: string,
  sourceIds: readonly unknown[],
  lookup: Document,
  reads: ReadContext,
): Promise<(Document | null)[]> {
  const sources = db.collection(collection);
  const match = { _id: { $in: sourceIds } };
  const found = await readAdmitted(
    sources,
    match,
    sourceIds.length,
    (filter) =>
      sources
        .aggregate([{ $match: filter }, { $lookup: lookup }], { session: reads.session, ...RAW })
        .toArray(),
    reads,
  );
  const byId = new Map(found.map((doc) => [bsonKey(doc._id), doc]));
  return sourceIds.map((id) => byId.get(bsonKey(id)) ?? null);
}
