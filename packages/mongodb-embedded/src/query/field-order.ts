// mongod keeps a document's fields in the order they were written ("Document Field Order"),
// and compares documents field by field in that order. A JS object lists integer-like keys
// ("2", "10") first, ascending, so `{b: 1, "2": 1}` would come back as `{"2": 1, b: 1}`. A
// document whose order differs from its keys' JS order carries its order in a non-enumerable
// property (invisible to Object.keys, spread and assert), and a `toBSON` that serializes it
// in that order. Documents without integer-like keys, nearly all, carry nothing.
import type { Document } from "bson";

const FIELD_ORDER = Symbol("fieldOrder");

interface Ordered {
  [FIELD_ORDER]?: readonly string[];
}

/** Whether JS enumerates `key` ahead of the others: a canonical array index, 0 to 2^32 - 2. */
export function isIntegerKey(key: string): boolean {
  const first = key.charCodeAt(0);
  if (first < 48 || first > 57) return false;
  if (key.length > 10 || (first === 48 && key.length > 1)) return false;
  for (let i = 1; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return key.length < 10 || Number(key) <= 4294967294;
}

/** The document's field names in BSON order. */
export function fieldNames(doc: object): readonly string[] {
  const order = (doc as Ordered)[FIELD_ORDER];
  return order === undefined ? Object.keys(doc) : currentOrder(doc, order);
}

/**
 * The recorded order, brought up to date with the keys: removed ones are left out, and ones
 * set since (by code that does not go through setField) come last, as mongod appends them.
 */
function currentOrder(doc: object, order: readonly string[]): readonly string[] {
  const keys = Object.keys(doc);
  if (keys.length === order.length && order.every((name) => Object.hasOwn(doc, name))) return order;
  const names = order.filter((name) => Object.hasOwn(doc, name));
  const listed = new Set(names);
  for (const key of keys) if (!listed.has(key)) names.push(key);
  return names;
}

/** Records `names` (the document's keys) as its field order, where JS's own order differs. */
export function keepFieldOrder(doc: object, names: readonly string[]): void {
  const keys = Object.keys(doc);
  let same = keys.length === names.length;
  for (let i = 0; same && i < keys.length; i++) same = keys[i] === names[i];
  if (same) {
    if ((doc as Ordered)[FIELD_ORDER] !== undefined) {
      delete (doc as Ordered)[FIELD_ORDER];
      delete (doc as { toBSON?: unknown }).toBSON;
    }
    return;
  }
  // Configurable, so that the serializing proxy may hide toBSON from the serializer.
  Object.defineProperty(doc, FIELD_ORDER, { value: names, configurable: true, writable: true });
  Object.defineProperty(doc, "toBSON", { value: orderedView, configurable: true, writable: true });
}

/** What js-bson serializes in place of an ordered document: the same fields, in its order. */
function orderedView(this: object): object {
  return new Proxy(this, {
    ownKeys: (target) => [...fieldNames(target)],
    get: (target, key) => (key === "toBSON" ? undefined : (target as Record<string | symbol, unknown>)[key]),
  });
}

/** Gives `copy`, a copy of `original` or of some of its fields, the original's field order. */
export function copyFieldOrder(original: object, copy: object): void {
  const order = (original as Ordered)[FIELD_ORDER];
  if (order !== undefined) keepFieldOrder(copy, currentOrder(copy, order));
}

/** Sets a field as an update does: an existing field keeps its place, a new one goes last. */
export function setField(doc: Record<string, unknown>, key: string, value: unknown): void {
  if (Object.hasOwn(doc, key) || ((doc as Ordered)[FIELD_ORDER] === undefined && !isIntegerKey(key))) {
    doc[key] = value;
    return;
  }
  const names = [...fieldNames(doc), key];
  doc[key] = value;
  keepFieldOrder(doc, names);
}

/** Removes a field, keeping the others' order. */
export function removeField(doc: Record<string, unknown>, key: string): void {
  const order = (doc as Ordered)[FIELD_ORDER];
  delete doc[key];
  if (order !== undefined) keepFieldOrder(doc, currentOrder(doc, order));
}

/** `doc` with `_id` (set to `id`) as its first field and the others in their order. */
export function withIdAhead(id: unknown, doc: Document): Document {
  const result: Document = { _id: id, ...doc };
  result._id = id;
  if ((doc as Ordered)[FIELD_ORDER] !== undefined || hasIntegerKey(result)) {
    keepFieldOrder(result, ["_id", ...fieldNames(doc).filter((name) => name !== "_id")]);
  }
  return result;
}

/** JS lists integer-like keys first, so the first key tells whether there is any. */
function hasIntegerKey(doc: object): boolean {
  for (const key in doc) return isIntegerKey(key);
  return false;
}
