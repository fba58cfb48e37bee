// Reads what folding a key's loose documents needs (loose-entries.ts): the loose documents
// oldest first, the `_id`s the key's buckets take, and its open bucket, chosen as the seed's
// upsert `updateOne({ _id: /^<key>_/, count: { $lt: 10 } }, ...)` would, preferring the
// newest (`_id`s sort in time order) so that a fold lands where the seed's next push would.
import type { ClientSession, Db, Document } from "mongodb";
import { RAW, verbatim, verbatimOrNull } from "../common/bson-value.js";
import type { BucketRule } from "./rule.js";
import type { LooseEntryState } from "./loose-entries.js";

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

/** `_id`s of the key's buckets; a prefix regex on `_id` is answered from the `_id` index. */
export async function bucketIdsOf(
  db: Db,
  rule: BucketRule,
  keyText: string,
  session?: ClientSession,
): Promise<Set<string>> {
  const taken = await db
    .collection(rule.collection)
    .find({ _id: { $regex: `^${escapeRegex(keyText)}_` } as never }, { session, projection: { _id: 1 } })
    .toArray();
  return new Set(taken.map((doc) => String(doc._id)));
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
  const takenIds = await bucketIdsOf(db, rule, key.text, session);
  const openBucket = verbatimOrNull(
    await buckets.findOne(
      {
        _id: { $in: [...takenIds] } as never,
        [rule.countField]: { $lt: rule.threshold },
        [rule.arrayField]: { $type: "array" },
      },
      { session, sort: { _id: -1 }, ...RAW },
    ),
  );
  // New buckets name the key as the loose documents hold it (the event's value is promoted).
  return { key: entries[0]?.[rule.keyField] ?? key.value, entries, openBucket, takenIds };
}
