// Bucket pattern: a bucket holds at most `threshold` entries and `count` = its array's length.
//
// - Split: the first `threshold` entries stay; the rest go, verbatim and in order, into new
//   buckets of at most `threshold`, each `_id`'d after its first entry's date (bucket-ids.ts).
//   An entry that would start a new bucket without a valid date (or one an `_id` cannot
//   keep in time order), or a missing key, makes
//   the document a skip: the sidecar cannot name the bucket, and it never guesses.
// - Repair: a bucket within bounds whose count disagrees with its array gets count = length
//   (the array is the data; count is derived from it for the seed's `count: {$lt: 10}`).
// - Guards: the bucket by `_id` + exact array size; new buckets by their `_id` (a stale or
//   replayed insert fails on the `_id` index instead of duplicating entries).
import type { Document } from "mongodb";
import type { BucketRule } from "./rule.js";
import { baseBucketId, bucketIdAllocator, bucketKeyText, unorderableDate } from "./bucket-ids.js";
import { keepFirst } from "../arrays/array-trim.js";
import { describeValue, isPlainDocument, isValidDate, numberValue } from "../bson/bson-value.js";
import { quoted } from "../bson/quoted-value.js";
import { inGroupsOf } from "../arrays/groups.js";
import { newBucket } from "./new-bucket.js";
import type { Plan, Write } from "../plan.js";

export interface BucketState {
  bucket: Document;
  /** Of the base `_id`s a split would name its new buckets after (`splitBaseIds`), those
   * taken, each with its largest taken suffixed form: all the allocator needs, so that a
   * split reads O(new buckets), never the key's whole history. */
  takenIds: ReadonlySet<string>;
}

/** The base `_id`s (`<key>_<seconds>`) of the buckets a split of `bucket` would create; none
 * when it needs no split or cannot be split. */
export function splitBaseIds(rule: BucketRule, bucket: Document): string[] {
  const entries: unknown = bucket[rule.arrayField];
  const keyText = bucketKeyText(bucket[rule.keyField]);
  if (!Array.isArray(entries) || entries.length <= rule.threshold || keyText === null) return [];
  const bases = new Set<string>();
  for (const [first] of inGroupsOf(entries.slice(rule.threshold), rule.threshold)) {
    const date = isPlainDocument(first) ? first[rule.dateField] : undefined;
    const base = isValidDate(date) ? baseBucketId(keyText, date) : null;
    if (base !== null) bases.add(base);
  }
  return [...bases];
}

const NONE: Plan = { outcome: "none" };

/** `maxWrites` (PlanContext): a split that would write more moves only its last groups (a part). */
export function planBucketSplit(rule: BucketRule, state: BucketState, maxWrites = Infinity): Plan {
  const { bucket } = state;
  const entries: unknown = bucket[rule.arrayField];
  if (entries === undefined) return NONE;
  if (!Array.isArray(entries)) {
    return { outcome: "skip", reason: `${rule.arrayField} is ${describeValue(entries)}, expected an array` };
  }
  if (entries.length > rule.threshold) return planSplit(rule, state, entries, maxWrites);
  if (numberValue(bucket[rule.countField]) !== entries.length) return planCountRepair(rule, bucket, entries);
  return NONE;
}

/**
 * Plans the buckets read together (readBucketStates; null for one that no longer exists), in
 * order: the `_id`s of each plan's new buckets count as taken for the plans after it, so that
 * two buckets of one key split in one transaction never name the same new bucket.
 */
export function planBucketSplits(
  rule: BucketRule,
  buckets: readonly (Document | null)[],
  takenIds: ReadonlySet<string>,
  maxWrites?: number,
): Plan[] {
  const taken = new Set(takenIds);
  return buckets.map((bucket) => {
    if (!bucket) return NONE;
    const plan = planBucketSplit(rule, { bucket, takenIds: taken }, maxWrites);
    if (plan.outcome === "writes")
      for (const write of plan.writes) if (write.op === "insertOne") taken.add(String(write.document._id));
    return plan;
  });
}

function sizeGuard(rule: BucketRule, bucket: Document, entries: unknown[]): Document {
  return { _id: bucket._id, [rule.arrayField]: { $size: entries.length } };
}

function planCountRepair(rule: BucketRule, bucket: Document, entries: unknown[]): Plan {
  const repair: Write = {
    op: "updateOne",
    collection: rule.collection,
    filter: sizeGuard(rule, bucket, entries),
    update: { $set: { [rule.countField]: entries.length } },
  };
  return { outcome: "writes", kind: "repaired", writes: [repair], elementsMoved: 0 };
}

function planSplit(rule: BucketRule, state: BucketState, entries: unknown[], maxWrites: number): Plan {
  const key: unknown = state.bucket[rule.keyField];
  const keyText = bucketKeyText(key);
  if (keyText === null) {
    return {
      outcome: "skip",
      reason: `${rule.keyField} is ${describeValue(key)}, expected a non-empty string, a number or an ObjectId`,
    };
  }
  const groups = inGroupsOf(entries.slice(rule.threshold), rule.threshold);
  const partial = groups.length + 1 > maxWrites;
  const firstMoved = partial ? firstGroupOfPart(rule, keyText, groups, maxWrites - 1) : 0;
  // No part ends where two groups' buckets would share a name: the whole split, too large.
  if (firstMoved === null) return planSplit(rule, state, entries, Infinity);
  const kept = rule.threshold * (firstMoved + 1);
  const allocateId = bucketIdAllocator(state.takenIds);
  const inserts: Write[] = [];
  for (const [index, group] of groups.entries()) {
    if (index < firstMoved) continue;
    const position = rule.threshold * (index + 1);
    const id = newBucketId(rule, keyText, group[0], position, allocateId);
    if (!id.ok) return { outcome: "skip", reason: id.reason };
    inserts.push(newBucket(rule, id.value, key, group));
  }
  const trim: Write = {
    op: "updateOne",
    collection: rule.collection,
    filter: sizeGuard(rule, state.bucket, entries),
    update: keepFirst(rule.arrayField, kept, { [rule.countField]: kept }),
  };
  const writes = [trim, ...inserts];
  const elementsMoved = entries.length - kept;
  return partial
    ? { outcome: "writes", kind: "split", writes, elementsMoved, partial }
    : { outcome: "writes", kind: "split", writes, elementsMoved };
}

/**
 * The first of the last groups a part of at most `maxGroups` new buckets moves, or null when
 * none can. A part moves the newest entries: the bucket keeps the older ones, so that an
 * application's push into its newest bucket between two parts still lands after everything
 * older. Its first group must not start in the second the group before it starts in: their
 * buckets would share a base name, and the later part's suffix would sort after this one's.
 */
function firstGroupOfPart(
  rule: BucketRule,
  keyText: string,
  groups: readonly unknown[][],
  maxGroups: number,
): number | null {
  const baseOf = (group: readonly unknown[]) => {
    const first = group[0];
    const date = isPlainDocument(first) ? first[rule.dateField] : undefined;
    return isValidDate(date) ? baseBucketId(keyText, date) : null;
  };
  for (let first = groups.length - Math.max(1, maxGroups); first < groups.length; first++) {
    const base = baseOf(groups[first]!);
    if (first > 0 && base !== null && base !== baseOf(groups[first - 1]!)) return first;
  }
  return null;
}

type IdResult = { ok: true; value: string } | { ok: false; reason: string };

function newBucketId(
  rule: BucketRule,
  keyText: string,
  firstEntry: unknown,
  position: number,
  allocateId: (base: string) => string | null,
): IdResult {
  const where = `${rule.arrayField}[${position}]`;
  if (!isPlainDocument(firstEntry)) {
    return { ok: false, reason: `${where} is ${describeValue(firstEntry)}, expected a document` };
  }
  const date = firstEntry[rule.dateField];
  if (!isValidDate(date)) {
    return { ok: false, reason: `${where}.${rule.dateField} is ${describeValue(date)}, expected a date` };
  }
  const base = baseBucketId(keyText, date);
  if (base === null) return { ok: false, reason: `${where}.${rule.dateField} is ${unorderableDate(date)}` };
  const id = allocateId(base);
  if (id === null) return { ok: false, reason: `${where}: every suffix of ${quoted(base)} is taken` };
  return { ok: true, value: id };
}
