// Copies of documents for updates: plain documents and arrays are copied; BSON values
// (ObjectId, Long, Date, ...) are shared, since nothing in the server mutates them.
import { isPlainDocument } from "./bson-types.js";
import { copyFieldOrder } from "@pattern-sidecar/bson-field-order";

export function deepCopy<T>(value: T): T {
  if (Array.isArray(value)) return value.map(deepCopy) as T;
  if (!isPlainDocument(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) copy[key] = deepCopy(value[key]);
  copyFieldOrder(value, copy);
  return copy as T;
}

/** A copy of one level: the fields (or elements) in the same order, their values shared. */
export function shallowCopy<T extends Record<string, unknown> | unknown[]>(container: T): T {
  if (Array.isArray(container)) return container.slice() as T;
  // Spread, not assignment, so that a field named "__proto__" stays a field.
  const copy = { ...container };
  copyFieldOrder(container, copy);
  return copy;
}
