// Loose entries: the seed's schema before buckets stores each trade as its own document of
// the bucket collection (`{ ticker, customerId, type, quantity, date }`: the key and a date,
// no entries array, no count), and applications may keep writing it that way. One such
// document is folded into its key's open bucket (the newest with fewer than `threshold`
// entries, where the seed's own upsert would push) or into a new bucket named after its
// date, and deleted, in one plan: the entry exists exactly once before and after. The
// correction starts from the key, not the document, so that folds of one key run in order
// and fill one open bucket rather than racing to open one each.
//
// - The entry is the document verbatim without `_id` and the key field (the bucket holds
//   the key once).
// - Guards: the loose document by `_id` and the absence of the entries array (a delete that
//   matches nothing is a stale plan); the open bucket by `_id` + exact array size; a new
//   bucket by its `_id`.
import type { Document } from "mongodb";
import { describeValue, isValidDate } from "../bson/bson-value.js";
import { quoted } from "../bson/quoted-value.js";
import { inGroupsOf } from "../arrays/groups.js";
import { fieldEntries, orderedDocument } from "@pattern-sidecar/bson-field-order";
import type { Plan, Write } from "../plan.js";
import { baseBucketId, bucketIdAllocator, bucketKeyText, unorderableDate } from "./bucket-ids.js";
import { newBucket } from "./new-bucket.js";
import { isOpenBucketOf } from "./open-bucket.js";
import { bucketRuleSchema, type BucketRule } from "./rule.js";

export interface LooseEntryState {
  /** The key whose loose documents are folded. */
  key: unknown;
  /** Loose documents of that key, oldest first (by date, then `_id`). */
  entries: Document[];
  /** The key's newest bucket with fewer than `threshold` entries by its count, if any; used
   * only if it holds the key (by value and type) under an `_id` of the key's (open-bucket.ts). */
  openBucket: Document | null;
  /** `_id`s taken that start with "<key>_" (whoever's), which new buckets must avoid. */
  takenIds: ReadonlySet<string>;
}

const SEED_RULE = bucketRuleSchema.parse({ pattern: "bucket" });
const SEED_FIELDS = ["collection", "arrayField", "keyField", "dateField", "countField"] as const;

/**
 * Whether the rule folds loose entries: as configured, or, unset, only when the rule is the
 * seed's (its collection and fields), whose before-schema is known to be one trade per
 * document. Elsewhere a document without entries may be something else the sidecar does not
 * understand, and it never rewrites those.
 */
export function foldsLooseEntries(rule: BucketRule): boolean {
  return rule.looseEntries ?? SEED_FIELDS.every((field) => rule[field] === SEED_RULE[field]);
}

/** A document that is one entry on its own: a key and a date, no entries array and no count. */
export function isLooseEntry(rule: BucketRule, doc: Document): boolean {
  const key: unknown = doc[rule.keyField];
  return (
    doc[rule.arrayField] === undefined &&
    doc[rule.countField] === undefined &&
    key !== undefined &&
    key !== null &&
    doc[rule.dateField] instanceof Date
  );
}

/** The bucket entry a loose document becomes: itself without `_id` and the key field. */
export function entryOf(rule: BucketRule, doc: Document): Document {
  // In the document's own field order (a rest spread would put integer-like names first).
  return orderedDocument(fieldEntries(doc).filter(([name]) => name !== "_id" && name !== rule.keyField));
}

/**
 * Folds the key's loose documents, in order, into its open bucket until it holds
 * `threshold`, then into new buckets of at most `threshold`, and deletes them.
 */
export function planLooseEntryFold(rule: BucketRule, state: LooseEntryState): Plan {
  const keyText = bucketKeyText(state.key);
  if (keyText === null) {
    return {
      outcome: "skip",
      reason: `${rule.keyField} is ${describeValue(state.key)}, expected a non-empty string, a number or an ObjectId`,
    };
  }
  if (state.entries.length === 0) return { outcome: "none" };
  const { fill, rest } = fillOpenBucket(rule, state, keyText);
  const created = newBuckets(rule, state, keyText, rest);
  if (!created.ok) return { outcome: "skip", reason: created.reason };
  const removals = state.entries.map((doc) => removeLoose(rule, doc));
  const writes = [...fill, ...created.value, ...removals];
  return { outcome: "writes", kind: "folded", writes, elementsMoved: state.entries.length };
}

function removeLoose(rule: BucketRule, doc: Document): Write {
  return {
    op: "deleteOne",
    collection: rule.collection,
    filter: { _id: doc._id, [rule.arrayField]: { $exists: false } },
  };
}

function fillOpenBucket(
  rule: BucketRule,
  state: LooseEntryState,
  keyText: string,
): { fill: Write[]; rest: Document[] } {
  const open = state.openBucket;
  const entries: unknown = open?.[rule.arrayField];
  if (!open || !isOpenBucketOf(rule, state.key, keyText, open) || !Array.isArray(entries))
    return { fill: [], rest: state.entries };
  const room = rule.threshold - entries.length;
  const joining = state.entries.slice(0, room).map((doc) => entryOf(rule, doc));
  const fill: Write = {
    op: "updateOne",
    collection: rule.collection,
    filter: { _id: open._id, [rule.arrayField]: { $size: entries.length } },
    update: {
      $set: {
        [rule.arrayField]: [...entries, ...joining],
        [rule.countField]: entries.length + joining.length,
      },
    },
  };
  return { fill: [fill], rest: state.entries.slice(room) };
}

type Checked<T> = { ok: true; value: T } | { ok: false; reason: string };

function newBuckets(
  rule: BucketRule,
  state: LooseEntryState,
  keyText: string,
  docs: Document[],
): Checked<Write[]> {
  const allocateId = bucketIdAllocator(state.takenIds);
  const inserts: Write[] = [];
  for (const group of inGroupsOf(docs, rule.threshold)) {
    const date: unknown = group[0]?.[rule.dateField];
    if (!isValidDate(date))
      return { ok: false, reason: `${rule.dateField} is ${describeValue(date)}, expected a date` };
    const base = baseBucketId(keyText, date);
    if (base === null) return { ok: false, reason: `${rule.dateField} is ${unorderableDate(date)}` };
    const id = allocateId(base);
    if (id === null) return { ok: false, reason: `every suffix of ${quoted(base)} is taken` };
    inserts.push(
      newBucket(
        rule,
        id,
        state.key,
        group.map((doc) => entryOf(rule, doc)),
      ),
    );
  }
  return { ok: true, value: inserts };
}
