// The update that keeps an array's first `count` entries: a `$push` of nothing with `$slice`.
// A `$set` of the kept entries would send them all back, to be serialized by the driver and
// parsed and compared again by the server. Every trim is guarded by the array's exact size
// and runs in the transaction that read the array, so it keeps the very entries that were read.
import type { Document } from "mongodb";

export function keepFirst(field: string, count: number, set?: Document): Document {
  const push = { [field]: { $each: [], $slice: count } };
  return set ? { $push: push, $set: set } : { $push: push };
}
