// mingo compares and computes only with JS numbers: an Int32, Double or Long wrapper is an
// opaque object to it ($add, $sum and $gt would silently go wrong). Documents handed to mingo
// are therefore deep copies in which those wrappers are plain numbers. The copy also keeps
// mingo's in-place path writes ($addFields "a.b") away from the caller's documents.
import type { Document, Long } from "bson";
import { bsonTag, isPlainDocument, toNumber } from "./bson-types.js";

export function toMingoValue(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(toMingoValue);
  const tag = bsonTag(value);
  if (tag === "Int32" || tag === "Double") return toNumber(value);
  if (tag === "Long") return (value as Long).toNumber();
  if (!isPlainDocument(value)) return value;
  const copy: Document = {};
  for (const key of Object.keys(value)) copy[key] = toMingoValue(value[key]);
  return copy;
}

export function toMingoDocument(doc: Document): Document {
  return toMingoValue(doc) as Document;
}
