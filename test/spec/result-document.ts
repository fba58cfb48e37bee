// "Converting Returned Model Objects to Documents": driver results (BulkWriteResult, client bulk
// write results with Maps of per-operation results) become plain documents the matcher can walk.
import { bsonTypeTag } from "./bson-values.js";

export function resultDocument(value: unknown): unknown {
  if (value === null || value === undefined || typeof value !== "object") return value;
  if (value instanceof Date || value instanceof RegExp || value instanceof Uint8Array) return value;
  if (bsonTypeTag(value) !== undefined) return value;
  if (Array.isArray(value)) return value.map(resultDocument);
  if (value instanceof Map) {
    return Object.fromEntries(
      [...value.entries()].map(([key, entry]) => [String(key), resultDocument(entry)]),
    );
  }
  // Plain objects and model classes alike: their own enumerable fields are the result's fields.
  return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, resultDocument(entry)]));
}
