// Reads what folding a key's loose documents needs (loose-entries.ts): the loose documents
// oldest first, the `_id`s a new bucket of the key could collide with, and its open bucket,
// chosen as the seed's upsert `updateOne({ _id: /^<key>_/, count: { $lt: 10 } }, ...)` would,
// preferring the newest (`_id`s sort in time order) so that a fold lands where the seed's
// next push would; but only a bucket of that very key (open-bucket.ts), which the prefix
// alone does not tell.
import type { ClientSession, Collection, Db, Document } from "mongodb";
import { RAW, verbatim } from "../bson/bson-value.js";
import type { BucketRule } from "./rule.js";
import type { LooseEntryState } from "./loose-entries.js";
import { isOpenBucketOf } from "./open-bucket.js";

/** Loose documents folded by one correction: a bounded transaction; `migrate` does bulk. */
export const LOOSE_ENTRIES_PER_FOLD = 1000;

/** The query that selects the key's loose documents (isLooseEntry), served by the `{ key, date }` index. */
export function looseEntriesOf(rule: BucketRule, key: unknown): Document {
  return {
    [rule.keyField]: key,
    [rule.dateField]: { $type: "date" },
    [rule.arrayField]: { $exists: false },
    [rule.countField]: { $exists: false },
  };
}

export function oldestFirst(rule: BucketRule): Document {
  return { [rule.keyField]: 1, [rule.dateField]: 1, _id: 1 };
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function idPrefix(keyText: string): never {
  return { $regex: `^${escapeRegex(keyText)}_` } as never;
}

/**
 * `_id`s starting with "<key>_", whoever's they are: `_id`s are unique across customers, so
 * every one a new bucket of the key could take counts. A prefix regex on `_id` is answered
 * from the `_id` index.
 */
export async function bucketIdsOf(
  db: Db,
  rule: BucketRule,
  keyText: string,
  session?: ClientSession,
): Promise<Set<string>> {
  const taken = await db
    .collection(rule.collection)
    .find({ _id: idPrefix(keyText) }, { session, projection: { _id: 1 } })
    .toArray();
  return new Set(taken.map((doc) => String(doc._id)));
}

/**
 * The key's newest bucket with room: of the buckets the seed's upsert could pick (prefix and
 * count), the first, newest first, that holds this very key with an `_id` of its own.
 */
async function readOpenBucket(
  buckets: Collection,
  rule: BucketRule,
  key: { text: string; value: unknown },
  session?: ClientSession,
): Promise<Document | null> {
  const candidates = buckets
    .find(
      {
        _id: idPrefix(key.text),
        [rule.keyField]: key.value,
        [rule.countField]: { $lt: rule.threshold },
        [rule.arrayField]: { $type: "array" },
      },
      { session, sort: { _id: -1 }, ...RAW },
    )
    .map(verbatim);
  for await (const bucket of candidates) {
    if (isOpenBucketOf(rule, key.value, key.text, bucket)) return bucket;
  }
  return null;
}

export async function readLooseEntryState(
  db: Db,
  rule: BucketRule,
  key: { text: string; value: unknown },
  session?: ClientSession,
): Promise<LooseEntryState> {
  const buckets = db.collection(rule.collection);
  const entries = await buckets
    .find(looseEntriesOf(rule, key.value), { session, ...RAW })
    .sort(oldestFirst(rule))
    .limit(LOOSE_ENTRIES_PER_FOLD)
    .map(verbatim)
    .toArray();
  // New buckets name the key as the loose documents hold it (the event's value is promoted).
  const keyValue: unknown = entries[0]?.[rule.keyField] ?? key.value;
  if (entries.length === 0) return { key: keyValue, entries, openBucket: null, takenIds: new Set() };
  const takenIds = await bucketIdsOf(db, rule, key.text, session);
  const openBucket = await readOpenBucket(buckets, rule, { text: key.text, value: keyValue }, session);
  return { key: keyValue, entries, openBucket, takenIds };
}
