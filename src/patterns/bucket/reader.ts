// Reads buckets and, for their splits, only the `_id`s the new buckets could collide with:
// each base `_id` a split would use and, when that is taken, its largest suffixed form. Two
// reads answered from the _id index, whatever the number of buckets read or of the keys'.
import type { ClientSession, Collection, Db, Document } from "mongodb";
import { bsonKey } from "../bson/bson-value.js";
import { readManyAdmitted } from "../reads/admitted-read.js";
import type { ReadContext } from "../driver.js";
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

/** Buckets read together, in the order asked (null for one that does not exist), and the
 * `_id`s their splits could collide with. */
export interface BucketStates {
  buckets: (Document | null)[];
  takenIds: Set<string>;
}

/**
 * Several buckets in one query by `_id`, then the `_id`s every split among them would use that
 * are taken, in one more: a batch's reads cost as much as one bucket's.
 */
export async function readBucketStates(
  db: Db,
  rule: BucketRule,
  bucketIds: readonly unknown[],
  reads: ReadContext = {},
): Promise<BucketStates> {
  const buckets = db.collection(rule.collection);
  const { session } = reads;
  const found = await readManyAdmitted(buckets, bucketIds, reads);
  const byId = new Map(found.map((doc) => [bsonKey(doc._id), doc]));
  const ordered = bucketIds.map((id) => byId.get(bsonKey(id)) ?? null);
  const bases = [...new Set(ordered.flatMap((bucket) => (bucket ? splitBaseIds(rule, bucket) : [])))];
  if (bases.length === 0) return { buckets: ordered, takenIds: new Set() };
  const taken = await buckets
    .find({ _id: { $in: bases } as never }, { session, projection: { _id: 1 } })
    .toArray();
  const takenIds = new Set(taken.map((doc) => String(doc._id)));
  for (const base of [...takenIds]) {
    const suffixed = await largestSuffixedId(buckets, base, session);
    if (suffixed) takenIds.add(suffixed);
  }
  return { buckets: ordered, takenIds };
}

export async function readBucketState(
  db: Db,
  rule: BucketRule,
  bucketId: unknown,
  reads: ReadContext = {},
): Promise<BucketState | null> {
  const { buckets, takenIds } = await readBucketStates(db, rule, [bucketId], reads);
  return buckets[0] ? { bucket: buckets[0], takenIds } : null;
}
