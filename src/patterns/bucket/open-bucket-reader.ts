// Reads what folding a key's loose documents needs (loose-entries.ts): the loose documents
// oldest first, the `_id`s a new bucket of the key could collide with, and its open bucket,
// chosen as the seed's upsert `updateOne({ _id: /^<key>_/, count: { $lt: 10 } }, ...)` would,
// preferring the newest (`_id`s sort in time order) so that a fold lands where the seed's
// next push would; but only a bucket of that very key (open-bucket.ts), which the prefix
// alone does not tell.
import type { ClientSession, Collection, Db, Document } from "mongodb";
import { bsonKey, RAW, verbatim } from "../bson/bson-value.js";
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

/** The buckets the seed's upsert could pick for the key: its `_id` prefix, the key, room left. */
function openBucketQuery(rule: BucketRule, key: LooseKey): Document {
  return {
    _id: idPrefix(key.text),
    [rule.keyField]: key.value,
    [rule.countField]: { $lt: rule.threshold },
    [rule.arrayField]: { $type: "array" },
  };
}

/**
 * The key's newest bucket with room: of the buckets the seed's upsert could pick (prefix and
 * count), the first, newest first, that holds this very key with an `_id` of its own.
 */
async function readOpenBucket(
  buckets: Collection,
  rule: BucketRule,
  key: LooseKey,
  session?: ClientSession,
): Promise<Document | null> {
  const candidates = buckets
    .find(openBucketQuery(rule, key), { session, sort: { _id: -1 }, ...RAW })
    .map(verbatim);
  for await (const bucket of candidates) {
    if (isOpenBucketOf(rule, key.value, key.text, bucket)) return bucket;
  }
  return null;
}

export async function readLooseEntryState(
  db: Db,
  rule: BucketRule,
  key: LooseKey,
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

/** A key whose loose documents a fold reads: its value and how it prints in `_id`s. */
export interface LooseKey {
  text: string;
  value: unknown;
}

/**
 * readLooseEntryState for several keys, in three reads rather than three per key: the loose
 * documents of every key by `$in`, the `_id`s and open buckets by one `$or` of the keys'
 * queries, each key's share picked from them as its own query would have. When the loose
 * documents pass one fold's bound (LOOSE_ENTRIES_PER_FOLD), which a read of all keys could not
 * keep per key, each key is read on its own.
 */
export async function readLooseEntryStates(
  db: Db,
  rule: BucketRule,
  keys: readonly LooseKey[],
  session?: ClientSession,
): Promise<LooseEntryState[]> {
  if (keys.length === 1) return [await readLooseEntryState(db, rule, keys[0]!, session)];
  const buckets = db.collection(rule.collection);
  const entries = await buckets
    .find(looseEntriesOf(rule, { $in: keys.map((key) => key.value) }), { session, ...RAW })
    .sort(oldestFirst(rule))
    .limit(LOOSE_ENTRIES_PER_FOLD)
    .map(verbatim)
    .toArray();
  if (entries.length === LOOSE_ENTRIES_PER_FOLD) {
    const states: LooseEntryState[] = [];
    for (const key of keys) states.push(await readLooseEntryState(db, rule, key, session));
    return states;
  }
  const entriesOf = groupByKey(entries, rule.keyField);
  const folded = keys.map((key) => {
    const own = entriesOf.get(bsonKey(key.value)) ?? [];
    // New buckets name the key as the loose documents hold it (the event's value is promoted).
    return { text: key.text, value: own[0]?.[rule.keyField] ?? key.value, entries: own };
  });
  const withEntries = folded.filter((key) => key.entries.length > 0);
  const taken = withEntries.length > 0 ? await bucketIdsOfKeys(db, rule, withEntries, session) : [];
  const open = withEntries.length > 0 ? await openBucketCandidates(buckets, rule, withEntries, session) : [];
  return folded.map(({ text, value, entries: own }) => {
    if (own.length === 0) return { key: value, entries: own, openBucket: null, takenIds: new Set<string>() };
    const prefix = `${text}_`;
    return {
      key: value,
      entries: own,
      openBucket: open.find((bucket) => isOpenBucketOf(rule, value, text, bucket)) ?? null,
      takenIds: new Set(taken.filter((id) => id.startsWith(prefix))),
    };
  });
}

/** Documents by their `keyField` as MongoDB's equality compares it (1 and 1.0 are one key). */
function groupByKey(docs: readonly Document[], keyField: string): Map<string, Document[]> {
  const groups = new Map<string, Document[]>();
  for (const doc of docs) {
    const key = bsonKey(doc[keyField]);
    const group = groups.get(key);
    if (group) group.push(doc);
    else groups.set(key, [doc]);
  }
  return groups;
}

/** The string `_id`s that start with any of the keys' "<key>_" (bucketIdsOf of each). */
async function bucketIdsOfKeys(
  db: Db,
  rule: BucketRule,
  keys: readonly LooseKey[],
  session?: ClientSession,
): Promise<string[]> {
  const taken = await db
    .collection(rule.collection)
    .find({ $or: keys.map((key) => ({ _id: idPrefix(key.text) })) }, { session, projection: { _id: 1 } })
    .toArray();
  return taken.map((doc) => String(doc._id));
}

/**
 * What readOpenBucket's query finds for any of the keys, newest first: each key then takes
 * the first that is its own open bucket, as readOpenBucket does from its own query's. Sorted
 * here, not by the server: asked to sort by `_id`, a planner may walk the whole `_id` index in
 * that order (the embedded server did, examining every document of the collection for each
 * batch of folds) where the `$or`'s branches each read their prefix.
 */
async function openBucketCandidates(
  buckets: Collection,
  rule: BucketRule,
  keys: readonly LooseKey[],
  session?: ClientSession,
): Promise<Document[]> {
  const found = await buckets
    .find({ $or: keys.map((key) => openBucketQuery(rule, key)) }, { session, ...RAW })
    .map(verbatim)
    .toArray();
  return found.sort((a, b) => compareStringsAsServer(b._id as string, a._id as string));
}

/** The server's order of two strings without a collation: by their UTF-8 bytes (the prefix regex matches only strings). */
function compareStringsAsServer(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}
