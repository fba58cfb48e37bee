// mingo compares and computes only with JS numbers: an Int32, Double or Long wrapper is an
// opaque object to it ($add, $sum and $gt would silently go wrong). Documents handed to mingo
// are therefore deep copies in which those wrappers are plain numbers. The copy also keeps
// mingo's in-place path writes ($addFields "a.b") away from the caller's documents.
import type { Document } from "bson";
import { bsonTag, isPlainDocument, toNumber } from "./bson-types.js";
import { copyFieldOrder } from "@pattern-sidecar/bson-field-order";

export function toMingoValue(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(toMingoValue);
  const tag = bsonTag(value);
  if (tag === "Int32" || tag === "Double") return toNumber(value);
  if (tag === "Long") return toNumber(value);
  if (!isPlainDocument(value)) return value;
  const copy: Document = {};
  for (const key of Object.keys(value)) copy[key] = toMingoValue(value[key]);
  copyFieldOrder(value, copy);
  return copy;
}

export function toMingoDocument(doc: Document): Document {
  return toMingoValue(doc) as Document;
}

/**
 * The same numeric view, sharing every part that needs no conversion. Only for read-only
 * evaluation ($expr): mingo must never write into the result.
 */
export function toSharedMingoValue(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  const tag = bsonTag(value);
  if (tag === "Int32" || tag === "Double" || tag === "Long") return toNumber(value);
  if (Array.isArray(value)) return shareArray(value);
  if (!isPlainDocument(value)) return value;
  let copy: Document | undefined;
  for (const key of Object.keys(value)) {
    const converted = toSharedMingoValue(value[key]);
    if (converted !== value[key]) {
      copy ??= { ...value };
      copy[key] = converted;
    }
  }
  if (copy !== undefined) copyFieldOrder(value, copy);
  return copy ?? value;
}

function shareArray(array: unknown[]): unknown[] {
  let copy: unknown[] | undefined;
  for (let i = 0; i < array.length; i++) {
    const converted = toSharedMingoValue(array[i]);
    if (converted !== array[i]) {
      copy ??= array.slice();
      copy[i] = converted;
    }
  }
  return copy ?? array;
}
