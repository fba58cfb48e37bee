// Reads a bucket and the _ids its customer's buckets already take, so that new buckets get
// unique _ids that sort in time order.
import type { ClientSession, Db } from "mongodb";
import type { BucketRule } from "./rule.js";
import type { BucketState } from "./planner.js";

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

export async function readBucketState(
  db: Db,
  rule: BucketRule,
  bucketId: unknown,
  session?: ClientSession,
): Promise<BucketState | null> {
  const buckets = db.collection(rule.collection);
  const bucket = await buckets.findOne({ _id: bucketId as never }, { session });
  if (!bucket) return null;
  const key: unknown = bucket[rule.keyField];
  if (key === undefined || key === null) return { bucket, takenIds: new Set() };
  // A prefix regex on _id is answered from the _id index, as the seed's own paging query is.
  const taken = await buckets
    .find({ _id: { $regex: `^${escapeRegex(String(key))}_` } as never }, { session, projection: { _id: 1 } })
    .toArray();
  return { bucket, takenIds: new Set(taken.map((doc) => String(doc._id))) };
}
