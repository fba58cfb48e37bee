// Reads a bucket and, for a split, only the `_id`s its new buckets could collide with: each
// base `_id` the split would use and, when that is taken, its largest suffixed form. Two
// reads answered from the _id index, whatever the number of the key's buckets.
import type { ClientSession, Collection, Db } from "mongodb";
import { RAW, verbatimOrNull } from "../common/bson-value.js";
import type { BucketRule } from "./rule.js";
import { splitBaseIds, type BucketState } from "./planner.js";
import { SUFFIX_DIGITS } from "./bucket-ids.js";

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The largest `<base>_NNNNNN`: a backward scan of the _id index from `<base>_999999`. */
async function largestSuffixedId(buckets: Collection, base: string, session?: ClientSession) {
  const [last] = await buckets
    .find(
      {
        _id: {
          $gt: `${base}_`,
          $lte: `${base}_${"9".repeat(SUFFIX_DIGITS)}`,
          $regex: `^${escapeRegex(base)}_\\d{${SUFFIX_DIGITS}}$`,
        } as never,
      },
      { session, projection: { _id: 1 } },
    )
    .sort({ _id: -1 })
    .limit(1)
    .toArray();
  return last ? String(last._id) : undefined;
}

export async function readBucketState(
  db: Db,
  rule: BucketRule,
  bucketId: unknown,
  session?: ClientSession,
): Promise<BucketState | null> {
  const buckets = db.collection(rule.collection);
  const bucket = verbatimOrNull(await buckets.findOne({ _id: bucketId as never }, { session, ...RAW }));
  if (!bucket) return null;
  const bases = splitBaseIds(rule, bucket);
  if (bases.length === 0) return { bucket, takenIds: new Set() };
  const taken = await buckets
    .find({ _id: { $in: bases } as never }, { session, projection: { _id: 1 } })
    .toArray();
  const takenIds = new Set(taken.map((doc) => String(doc._id)));
  for (const base of [...takenIds]) {
    const suffixed = await largestSuffixedId(buckets, base, session);
    if (suffixed) takenIds.add(suffixed);
  }
  return { bucket, takenIds };
}
