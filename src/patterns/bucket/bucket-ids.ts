// `_id`s of new buckets: `<key>_<epoch seconds of the first entry>`, as the seed builds them,
// so that the seed's paging query `find({_id: /^<key>_/}).sort({_id: 1})` returns buckets
// in time order. `_id`s compare as strings, so the seconds are always ten digits: zero-padded
// before 2001-09-09T01:46:40Z (9 digits and fewer would sort after "1..."), and dates they
// cannot order (before the epoch: "-" sorts before digits but "-2" after "-1"; past
// 2286-11-20T17:46:39Z: 11 digits) name no bucket. A taken id gets a suffix `_000001`, `_000002`...
// zero-padded so that suffixes sort numerically ("_000010" after "_000009") and so that
// "123_1698349623" < "123_1698349623_000001" < "123_1698349624" ("_" sorts after the
// digits' common prefix ends, the next second differs in an earlier digit). A new bucket
// takes the suffix after the largest taken one, never a gap, so it sorts after the others.
import { ObjectId } from "mongodb";
import { numberValue } from "../bson/bson-value.js";

export const SUFFIX_DIGITS = 6;
const MAX_SUFFIX = 10 ** SUFFIX_DIGITS - 1;

/** The text a bucket key contributes to `_id`s, or null for a key that cannot build one. */
export function bucketKeyText(key: unknown): string | null {
  if (typeof key === "string" && key.length > 0) return key;
  const number = numberValue(key);
  if (number !== undefined && Number.isFinite(number)) return String(number);
  if (key instanceof ObjectId) return key.toHexString();
  return null;
}

const SECONDS_DIGITS = 10;
const LAST_SECOND = 10 ** SECONDS_DIGITS - 1;

/** The first and last instants whose whole seconds since the epoch fit the ten digits of an `_id`. */
export const FIRST_BUCKET_DATE = new Date(0);
export const LAST_BUCKET_DATE = new Date(LAST_SECOND * 1000 + 999);

/** `<key>_<ten digits of whole seconds>`, or null for a date outside FIRST_BUCKET_DATE..LAST_BUCKET_DATE. */
export function baseBucketId(keyText: string, firstEntryDate: Date): string | null {
  const seconds = Math.floor(firstEntryDate.getTime() / 1000);
  if (!(seconds >= 0 && seconds <= LAST_SECOND)) return null;
  return `${keyText}_${String(seconds).padStart(SECONDS_DIGITS, "0")}`;
}

/** Why a valid date names no bucket: the skip reason's end. */
export function unorderableDate(date: Date): string {
  return (
    `${date.toISOString()}, outside the dates whose bucket _ids sort in time order ` +
    `(${FIRST_BUCKET_DATE.toISOString()} to ${LAST_BUCKET_DATE.toISOString()})`
  );
}

const SUFFIXED = new RegExp(`^(.*)_(\\d{${SUFFIX_DIGITS}})$`);
const AFTER_KEY = new RegExp(`^\\d+(_\\d{${SUFFIX_DIGITS}})?$`);

/**
 * Whether `id` is a bucket `_id` of the key printed `keyText`: `<key>_<seconds>`, optionally
 * suffixed, nothing else between. "p_q_1700000000" starts with "p_" but is not one of "p"'s.
 */
export function isBucketIdOf(keyText: string, id: unknown): boolean {
  const prefix = `${keyText}_`;
  return typeof id === "string" && id.startsWith(prefix) && AFTER_KEY.test(id.slice(prefix.length));
}

function withSuffix(base: string, suffix: number): string {
  return suffix === 0 ? base : `${base}_${String(suffix).padStart(SUFFIX_DIGITS, "0")}`;
}

/**
 * Hands out the `_id`s of one plan's new buckets: `base` while no bucket takes it, otherwise
 * the suffix after the largest taken, so that a new bucket sorts after every bucket of its
 * second. `taken` holds the taken bases among the plan's and their largest suffixed forms. `taken` is indexed once, so a split into k
 * buckets of one second costs O(k), not O(k²). Returns null once the suffixes run out.
 */
export function bucketIdAllocator(taken: Iterable<string>): (base: string) => string | null {
  const lastSuffix = new Map<string, number>();
  const record = (base: string, suffix: number) =>
    lastSuffix.set(base, Math.max(suffix, lastSuffix.get(base) ?? 0));
  for (const id of taken) {
    record(id, 0);
    const suffixed = SUFFIXED.exec(id);
    if (suffixed) record(suffixed[1] as string, Number(suffixed[2]));
  }
  return (base) => {
    const last = lastSuffix.get(base);
    const next = last === undefined ? 0 : last + 1;
    if (next > MAX_SUFFIX) return null;
    lastSuffix.set(base, next);
    return withSuffix(base, next);
  };
}
