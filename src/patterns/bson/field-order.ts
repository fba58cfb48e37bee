// MongoDB keeps a document's fields in the order they were written and compares documents
// field by field in that order. A JS object lists integer-like keys ("2", "10") first,
// ascending, so an entry `{b: 1, "2": 1, "1": 1}` decoded into one would be written back as
// `{"1": 1, "2": 1, b: 1}`: another value. A decoded document whose BSON order differs from
// its keys' JS order carries that order in a non-enumerable property, and a `toBSON` through
// which js-bson (the driver) serializes it in that order. Documents without integer-like
// keys, nearly all, carry nothing. (The embedded server does the same on its side.)
import { BSON, type Document } from "mongodb";

const FIELD_ORDER = Symbol("fieldOrder");

interface Ordered {
  [FIELD_ORDER]?: readonly string[];
}

/** A document read with RAW, decoded with its numbers' BSON types and its field order. */
export function decodeInOrder(bytes: Uint8Array): Document {
  const doc = BSON.deserialize(bytes, { promoteValues: false });
  if (hasIntegerName(bytes, 0, false, true)) restoreFieldOrder(bytes, 0, false, doc);
  return doc;
}

/** The document's field names in BSON order. */
export function fieldNames(doc: object): readonly string[] {
  const order = (doc as Ordered)[FIELD_ORDER];
  return order === undefined ? Object.keys(doc) : currentOrder(doc, order);
}

/** A document of `fields` in the order given; a name given twice keeps its first place. */
export function orderedDocument(fields: Iterable<readonly [string, unknown]>): Document {
  const doc: Document = {};
  const names: string[] = [];
  for (const [name, value] of fields) {
    if (!Object.hasOwn(doc, name)) names.push(name);
    // Assigned, a field named "__proto__" would set the prototype: defined, it stays a field.
    if (name === "__proto__") {
      Object.defineProperty(doc, name, { value, enumerable: true, writable: true, configurable: true });
    } else {
      doc[name] = value;
    }
  }
  keepFieldOrder(doc, names);
  return doc;
}

/** The fields of `doc` in its order, as [name, value] pairs. */
export function fieldEntries(doc: Record<string, unknown>): [string, unknown][] {
  return fieldNames(doc).map((name) => [name, doc[name]]);
}

/** The recorded order, without the keys removed since and with the ones added since last. */
function currentOrder(doc: object, order: readonly string[]): readonly string[] {
  const keys = Object.keys(doc);
  if (keys.length === order.length && order.every((name) => Object.hasOwn(doc, name))) return order;
  const names = order.filter((name) => Object.hasOwn(doc, name));
  const listed = new Set(names);
  for (const key of keys) if (!listed.has(key)) names.push(key);
  return names;
}

function keepFieldOrder(doc: object, names: readonly string[]): void {
  const keys = Object.keys(doc);
  if (keys.length === names.length && keys.every((key, i) => key === names[i])) return;
  // Configurable, so that the serializing proxy may hide toBSON from the serializer.
  Object.defineProperty(doc, FIELD_ORDER, { value: names, configurable: true });
  Object.defineProperty(doc, "toBSON", { value: orderedView, configurable: true });
}

/** What js-bson serializes in place of an ordered document: the same fields, in its order. */
function orderedView(this: object): object {
  return new Proxy(this, {
    ownKeys: (target) => [...fieldNames(target)],
    get: (target, key) => (key === "toBSON" ? undefined : (target as Record<string | symbol, unknown>)[key]),
  });
}

const EMBEDDED_DOCUMENT = 0x03;
const ARRAY = 0x04;

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

/** Records the order of the bytes on the decoded documents that need it, at `start` and under it. */
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

/** The document's field order where it differs from its keys' JS order, else undefined. */
export function recordedOrder(doc: object): readonly string[] | undefined {
  const order = (doc as Ordered)[FIELD_ORDER];
  if (order === undefined) return undefined;
  const names = currentOrder(doc, order);
  const keys = Object.keys(doc);
  return keys.every((key, i) => key === names[i]) ? undefined : names;
}
