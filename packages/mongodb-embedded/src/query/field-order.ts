// mongod stores `_id` as a document's first field and the others in the order written
// (docs: "Document Field Order"); the order itself is kept by @pattern-sidecar/bson-field-order.
import { fieldNames, isIntegerKey, keepFieldOrder, recordedOrder } from "@pattern-sidecar/bson-field-order";
import type { Document } from "bson";

/** `doc` with `_id` (set to `id`) as its first field and the others in their order. */
export function withIdAhead(id: unknown, doc: Document): Document {
  const result: Document = { _id: id, ...doc };
  result._id = id;
  if (recordedOrder(doc) !== undefined || hasIntegerKey(result)) {
    keepFieldOrder(result, ["_id", ...fieldNames(doc).filter((name) => name !== "_id")]);
  }
  return result;
}

/** JS lists integer-like keys first, so the first key tells whether there is any. */
function hasIntegerKey(doc: object): boolean {
  for (const key in doc) return isIntegerKey(key);
  return false;
}
