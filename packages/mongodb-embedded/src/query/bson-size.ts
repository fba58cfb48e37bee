// Documents' BSON sizes, computed once per document object. Stored versions are never mutated
// (storage/stored-collection.ts) and neither are the documents a pipeline hands on (mingo gets
// copies, mingo-view.ts), so an object's size never changes, and a WeakMap lets it go with it.
import { calculateObjectSize, type Document } from "bson";

const sizes = new WeakMap<Document, number>();

/** A document made from another by adding one field: its size follows from theirs. */
const extensions = new WeakMap<Document, { base: Document; field: Document }>();

/** The 4-byte length and the terminating 0 of an (empty) BSON document. */
const DOCUMENT_FRAME_BYTES = 5;

/** The BSON size of `doc`, which must never be mutated afterwards; computed once per document. */
export function bsonSize(doc: Document): number {
  let size = sizes.get(doc);
  if (size === undefined) {
    const extension = extensions.get(doc);
    size = extension
      ? bsonSize(extension.base) + calculateObjectSize(extension.field) - DOCUMENT_FRAME_BYTES
      : calculateObjectSize(doc);
    sizes.set(doc, size);
  }
  return size;
}

/**
 * A copy of `doc` (which lacks `name`) with `value` as its last field. Its size, when a cursor
 * asks, is `doc`'s (remembered for a stored version) plus the field's: a $lookup adds a small
 * field to every document it reads, which would otherwise be measured whole again.
 */
export function withAppendedField(doc: Document, name: string, value: unknown): Document {
  const copy = { ...doc, [name]: value };
  extensions.set(copy, { base: doc, field: { [name]: value } });
  return copy;
}
