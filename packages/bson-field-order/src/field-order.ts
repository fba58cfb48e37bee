// MongoDB keeps a document's fields in the order they were written and compares documents
// field by field in that order; a JS object lists integer-like keys first (README.md).
const FIELD_ORDER = Symbol("fieldOrder");

interface Ordered {
  [FIELD_ORDER]?: readonly string[];
}

/** Whether JS enumerates `key` ahead of the others: a canonical array index, 0 to 2^32 - 2. */
export function isIntegerKey(key: string): boolean {
  const first = key.charCodeAt(0); // NaN for "", which no comparison lets through
  if (!(first >= 48 && first <= 57)) return false;
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

/** The fields of `doc` in its order, as [name, value] pairs. */
export function fieldEntries(doc: Record<string, unknown>): [string, unknown][] {
  return fieldNames(doc).map((name) => [name, doc[name]]);
}

/** The document's field order where it differs from its keys' JS order, else undefined. */
export function recordedOrder(doc: object): readonly string[] | undefined {
  const order = (doc as Ordered)[FIELD_ORDER];
  if (order === undefined) return undefined;
  const names = currentOrder(doc, order);
  return sameNames(Object.keys(doc), names) ? undefined : names;
}

/**
 * The recorded order, brought up to date with the keys: removed ones are left out, and ones
 * set since (by code that does not go through setField) come last, as MongoDB appends them.
 */
function currentOrder(doc: object, order: readonly string[]): readonly string[] {
  const keys = Object.keys(doc);
  if (keys.length === order.length && order.every((name) => Object.hasOwn(doc, name))) return order;
  const names = order.filter((name) => Object.hasOwn(doc, name));
  const listed = new Set(names);
  for (const key of keys) if (!listed.has(key)) names.push(key);
  return names;
}

function sameNames(keys: readonly string[], names: readonly string[]): boolean {
  return keys.length === names.length && keys.every((key, i) => key === names[i]);
}

/** Records `names` (the document's keys) as its field order, where JS's own order differs. */
export function keepFieldOrder(doc: object, names: readonly string[]): void {
  if (sameNames(Object.keys(doc), names)) {
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

/** A document of `fields` in the order given; a name given twice keeps its first place. */
export function orderedDocument(fields: Iterable<readonly [string, unknown]>): Record<string, unknown> {
  const doc: Record<string, unknown> = {};
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
