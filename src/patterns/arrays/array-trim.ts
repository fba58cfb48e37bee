// The update that keeps an array's first `count` entries: a `$push` of nothing with `$slice`.
// A `$set` of the kept entries would send them all back, to be serialized by the driver and
// parsed and compared again by the server. Every trim is guarded by the array's exact size
// and runs in the transaction that read the array, so it keeps the very entries that were read.
// A part of a correction cuts entries from the middle instead (cutAfter), by a pipeline.
import type { Document } from "mongodb";

export function keepFirst(field: string, count: number, set?: Document): Document {
  const push = { [field]: { $each: [], $slice: count } };
  return set ? { $push: push, $set: set } : { $push: push };
}

/**
 * The update (a pipeline) that removes `count` entries after the first `keep` of `field`,
 * keeping the rest in order: the part of a split that moves only those (correction-parts.ts).
 */
export function cutAfter(field: string, keep: number, count: number, set: Document = {}): Document[] {
  const array = `$${field}`;
  const rest = { $slice: [array, keep + count, { $max: [1, { $size: array }] }] };
  return [{ $set: { [field]: { $concatArrays: [{ $slice: [array, keep] }, rest] }, ...set } }];
}
