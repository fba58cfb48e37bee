// Decoding a request's BSON documents. js-bson decodes into JS objects, which list integer-like
// keys first; mongod keeps fields as sent. A scan of the bytes (no allocation) finds the rare
// document with an integer-like field name, and only then is the sent order recorded on the
// decoded objects (query/field-order.ts).
import { deserialize, type Document } from "bson";
import { keepFieldOrder } from "../query/field-order.js";

/**
 * Numbers keep their BSON type (Int32, Double, Long wrappers) so that a document written as a
 * double comes back a double, and an Int64 is never narrowed to a JS number.
 */
const DESERIALIZE_OPTIONS = { promoteValues: false, promoteBuffers: false } as const;

const EMBEDDED_DOCUMENT = 0x03;
const ARRAY = 0x04;

/** One BSON document (validated by js-bson), its fields in the order they were sent. */
export function decodeDocument(bytes: Uint8Array): Document {
  const doc = deserialize(bytes, DESERIALIZE_OPTIONS);
  if (hasIntegerName(bytes, 0, false, true)) restoreFieldOrder(bytes, 0, false, doc);
  return doc;
}

function readInt32(bytes: Uint8Array, at: number): number {
  return bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24);
}

function cstringEnd(bytes: Uint8Array, at: number): number {
  while (bytes[at] !== 0) at++;
  return at;
}

/** Where the value of an element of `type` that starts at `at` ends. */
function valueEnd(bytes: Uint8Array, type: number, at: number): number {
  switch (type) {
    case 0x06: // undefined
    case 0x0a: // null
    case 0x7f: // maxKey
    case 0xff: // minKey
      return at;
    case 0x08: // bool
      return at + 1;
    case 0x10: // int32
      return at + 4;
    case 0x01: // double
    case 0x09: // date
    case 0x11: // timestamp
    case 0x12: // int64
      return at + 8;
    case 0x07: // objectId
      return at + 12;
    case 0x13: // decimal128
      return at + 16;
    case 0x02: // string
    case 0x0d: // code
    case 0x0e: // symbol
      return at + 4 + readInt32(bytes, at);
    case 0x05: // binary: length, subtype, bytes
      return at + 5 + readInt32(bytes, at);
    case 0x0b: // regex: pattern and options, two cstrings
      return cstringEnd(bytes, cstringEnd(bytes, at) + 1) + 1;
    case 0x0c: // dbPointer: string, then an ObjectId
      return at + 4 + readInt32(bytes, at) + 12;
    default: // embedded document, array, code with scope: length first
      return at + readInt32(bytes, at);
  }
}

/** Whether the name in bytes [start, end) is one JS enumerates first: an index up to 2^32 - 2. */
function isIntegerName(bytes: Uint8Array, start: number, end: number): boolean {
  const length = end - start;
  const first = bytes[start]!;
  if (length === 0 || length > 10 || first < 0x30 || first > 0x39 || (first === 0x30 && length > 1))
    return false;
  let value = 0;
  for (let at = start; at < end; at++) {
    const digit = bytes[at]! - 0x30;
    if (digit < 0 || digit > 9) return false;
    value = value * 10 + digit;
  }
  return value <= 4294967294;
}

/**
 * Whether the document (or array) at `start` has a field with an integer-like name, or, when
 * `deep`, any document inside it has. An array's own names are its indexes, which JS keeps.
 */
function hasIntegerName(bytes: Uint8Array, start: number, isArray: boolean, deep: boolean): boolean {
  const end = start + readInt32(bytes, start) - 1;
  let at = start + 4;
  while (at < end) {
    const type = bytes[at++]!;
    const nameStart = at;
    const first = bytes[at]!;
    at = cstringEnd(bytes, at);
    // Most names start with a letter: one comparison rules them out.
    if (!isArray && first <= 0x39 && isIntegerName(bytes, nameStart, at)) return true;
    at++;
    if (
      deep &&
      (type === EMBEDDED_DOCUMENT || type === ARRAY) &&
      hasIntegerName(bytes, at, type === ARRAY, true)
    )
      return true;
    at = valueEnd(bytes, type, at);
  }
  return false;
}

const utf8 = new TextDecoder();

/** Records the sent order on the decoded documents that need it, at `start` and under it. */
function restoreFieldOrder(bytes: Uint8Array, start: number, isArray: boolean, value: unknown): void {
  const container = value as Record<string, unknown>;
  const names: string[] | undefined = !isArray && hasIntegerName(bytes, start, false, false) ? [] : undefined;
  const end = start + readInt32(bytes, start) - 1;
  let at = start + 4;
  let index = 0;
  while (at < end) {
    const type = bytes[at++]!;
    const nameStart = at;
    at = cstringEnd(bytes, at);
    const nameEnd = at++;
    const nested =
      (type === EMBEDDED_DOCUMENT || type === ARRAY) && hasIntegerName(bytes, at, type === ARRAY, true);
    const name =
      isArray || (names === undefined && !nested)
        ? undefined
        : utf8.decode(bytes.subarray(nameStart, nameEnd));
    if (name !== undefined) names?.push(name);
    if (nested) {
      const child = isArray ? (value as unknown[])[index] : container[name!];
      // A {$ref, $id} document decodes to a DBRef, not a plain object: left as it is.
      if (isPlainContainer(child)) restoreFieldOrder(bytes, at, type === ARRAY, child);
    }
    at = valueEnd(bytes, type, at);
    index++;
  }
  if (names !== undefined) keepFieldOrder(container, names);
}

function isPlainContainer(value: unknown): boolean {
  return (
    Array.isArray(value) ||
    (typeof value === "object" &&
      value !== null &&
      (value as { _bsontype?: unknown })._bsontype === undefined)
  );
}
