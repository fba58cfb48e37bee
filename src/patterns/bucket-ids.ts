// `_id`s of new buckets: `<key>_<epoch seconds of the first entry>`, as the seed builds them,
// so that the seed's paging query `find({_id: /^<key>_/}).sort({_id: 1})` returns buckets
// in time order. `_id`s compare as strings: a taken id gets a suffix `_000001`, `_000002`...
// zero-padded so that suffixes sort numerically ("_000010" after "_000009") and so that
// "123_1698349623" < "123_1698349623_000001" < "123_1698349624" ("_" sorts after the
// digits' common prefix ends, the next second differs in an earlier digit).
import { ObjectId } from "bson";

const SUFFIX_DIGITS = 6;
const MAX_SUFFIX = 10 ** SUFFIX_DIGITS - 1;

/** The text a bucket key contributes to `_id`s, or null for a key that cannot build one. */
export function bucketKeyText(key: unknown): string | null {
  if (typeof key === "string" && key.length > 0) return key;
  if (typeof key === "number" && Number.isFinite(key)) return String(key);
  if (key instanceof ObjectId) return key.toHexString();
  return null;
}

export function baseBucketId(keyText: string, firstEntryDate: Date): string {
  return `${keyText}_${Math.floor(firstEntryDate.getTime() / 1000)}`;
}

/** The first of `base`, `base_000001`, `base_000002`... not in `taken`; null when all are. */
export function freeBucketId(base: string, taken: ReadonlySet<string>): string | null {
  if (!taken.has(base)) return base;
  for (let suffix = 1; suffix <= MAX_SUFFIX; suffix += 1) {
    const candidate = `${base}_${String(suffix).padStart(SUFFIX_DIGITS, "0")}`;
    if (!taken.has(candidate)) return candidate;
  }
  return null;
}
