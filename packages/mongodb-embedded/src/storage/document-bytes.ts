// Whether an update left a document's BSON unchanged. mongod reports an update that leaves
// the document's bytes unchanged as a no-op (nModified 0, no oplog entry); deciding that by
// serializing both versions cost a quarter of an update statement. Sizes are remembered per
// document object (query/bson-size.ts).
import { serialize, type Document } from "bson";
import { bsonSize } from "../query/bson-size.js";
import { isPlainDocument } from "../query/bson-types.js";
import { fieldNames } from "@pattern-sidecar/bson-field-order";

/**
 * Whether `before` and `after` serialize to the same bytes, as the old serialize-and-compare
 * decided, but cheaply when it can be proven: the same structure of the same values is the same
 * bytes, and different sizes are different bytes. Only the rest is serialized.
 */
export function sameBsonBytes(before: Document, after: Document): boolean {
  if (sameValues(before, after)) return true;
  if (bsonSize(before) !== bsonSize(after)) return false;
  return Buffer.from(serialize(before)).equals(serialize(after));
}

/**
 * True when both hold the same values in the same structure: then they serialize alike. False
 * means only "not shown": 1 and Int32(1), or a missing and an undefined field, serialize alike.
 */
function sameValues(a: unknown, b: unknown): boolean {
  if (a === b) return typeof a !== "number" || a !== 0 || Object.is(a, b);
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameValues(a[i], b[i])) return false;
    return true;
  }
  if (!isPlainDocument(a) || !isPlainDocument(b)) return false;
  const keys = fieldNames(a);
  const otherKeys = fieldNames(b);
  if (keys.length !== otherKeys.length) return false;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (key !== otherKeys[i] || !sameValues(a[key], b[key])) return false;
  }
  return true;
}
