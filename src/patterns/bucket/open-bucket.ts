// Which bucket a customer's loose entries may be folded into. The seed finds a customer's
// buckets by `_id` prefix (`/^<key>_/`), but a prefix also matches other customers: "p_q"'s
// buckets start with "p_", and the string customer "116658" names its buckets as the int
// customer 116658 does. Folding into one of those would put a trade in another customer's
// history, and delete the loose document, its only record. So a bucket belongs to a key only
// when it holds that key, by value and BSON type (the entries it receives lose their own key
// field: the bucket's is the one readers see), and its `_id` is the key's `_<seconds>`,
// optionally suffixed, with nothing else between.
import type { Document } from "mongodb";
import { bsonKey } from "../bson/bson-value.js";
import { isBucketIdOf } from "./bucket-ids.js";
import type { BucketRule } from "./rule.js";

const INT32_MAX = 2 ** 31 - 1;

/** The BSON type a value is stored as: the verbatim number classes, or a JS value as the driver serializes it. */
function bsonTypeOf(value: unknown): string {
  if (typeof value === "object" && value !== null && "_bsontype" in value) return String(value._bsontype);
  if (typeof value === "number")
    return Number.isInteger(value) && Math.abs(value) <= INT32_MAX ? "Int32" : "Double";
  return typeof value;
}

/** Whether two keys name the same customer: equal as MongoDB compares them, and of one BSON type. */
export function sameKey(a: unknown, b: unknown): boolean {
  return bsonKey(a) === bsonKey(b) && bsonTypeOf(a) === bsonTypeOf(b);
}

/** Whether `bucket` is one of `key`'s buckets (`keyText` is how `key` prints in `_id`s). */
export function isBucketOf(rule: BucketRule, key: unknown, keyText: string, bucket: Document): boolean {
  return sameKey(bucket[rule.keyField], key) && isBucketIdOf(keyText, bucket._id);
}

/** Whether `bucket` is one of `key`'s buckets with room left: what a fold may fill. */
export function isOpenBucketOf(rule: BucketRule, key: unknown, keyText: string, bucket: Document): boolean {
  const entries: unknown = bucket[rule.arrayField];
  return isBucketOf(rule, key, keyText, bucket) && Array.isArray(entries) && entries.length < rule.threshold;
}
