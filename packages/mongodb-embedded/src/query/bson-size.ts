// Documents' BSON sizes, computed once per document object. Stored versions are never mutated
// (storage/stored-collection.ts) and neither are the documents a pipeline hands on (mingo gets
// copies, mingo-view.ts), so an object's size never changes, and a WeakMap lets it go with it.
import { calculateObjectSize, type Document } from "bson";
import { isPlainDocument } from "./bson-types.js";

const sizes = new WeakMap<Document, number>();

/** A document made from another by adding one field: its size follows from theirs. */
const extensions = new WeakMap<Document, { base: Document; name: string; value: unknown }>();

/** The 4-byte length and the terminating 0 of an (empty) BSON document. */
const DOCUMENT_FRAME_BYTES = 5;

/** The BSON size of `doc`, which must never be mutated afterwards; computed once per document. */
export function bsonSize(doc: Document): number {
  let size = sizes.get(doc);
  if (size === undefined) {
    const extension = extensions.get(doc);
    size = extension
      ? bsonSize(extension.base) + fieldBytes(extension.name, extension.value)
      : calculateObjectSize(doc);
    sizes.set(doc, size);
  }
  return size;
}

/**
 * The bytes one field adds to a document: its type byte, its name and its value. A $lookup's
 * field is an array of documents, often stored versions whose sizes are remembered: it is
 * measured from theirs (each element is a type byte, its index as a name, and the document),
 * where measuring it whole walked every joined document again.
 */
function fieldBytes(name: string, value: unknown): number {
  if (!Array.isArray(value) || !value.every(isPlainDocument))
    return calculateObjectSize({ [name]: value }) - DOCUMENT_FRAME_BYTES;
  let arrayBytes = DOCUMENT_FRAME_BYTES;
  value.forEach((element: Document, index) => {
    arrayBytes += 1 + String(index).length + 1 + bsonSize(element);
  });
  return 1 + Buffer.byteLength(name) + 1 + arrayBytes;
}

/**
 * A copy of `doc` (which lacks `name`) with `value` as its last field. Its size, when a cursor
 * asks, is `doc`'s (remembered for a stored version) plus the field's: a $lookup adds a
 * field to every document it reads, which would otherwise be measured whole again.
 */
export function withAppendedField(doc: Document, name: string, value: unknown): Document {
  const copy = { ...doc, [name]: value };
  extensions.set(copy, { base: doc, name, value });
  return copy;
}
