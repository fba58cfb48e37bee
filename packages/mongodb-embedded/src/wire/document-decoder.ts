// Decoding a request's BSON documents: mongod keeps fields as sent, js-bson's JS objects list
// integer-like keys first, so the sent order is recorded where it differs (bson-field-order).
import { withFieldOrderOf } from "@pattern-sidecar/bson-field-order";
import { deserialize, type Document } from "bson";

/**
 * Numbers keep their BSON type (Int32, Double, Long wrappers) so that a document written as a
 * double comes back a double, and an Int64 is never narrowed to a JS number.
 */
const DESERIALIZE_OPTIONS = { promoteValues: false, promoteBuffers: false } as const;

/** One BSON document (validated by js-bson), its fields in the order they were sent. */
export function decodeDocument(bytes: Uint8Array): Document {
  return withFieldOrderOf(bytes, deserialize(bytes, DESERIALIZE_OPTIONS));
}
