// How the planners look at BSON values without a server: equality and map keys through
// canonical Extended JSON (type- and key-order-sensitive, as MongoDB compares documents),
// and the type names used in skip reasons.
import { BSON } from "mongodb";

/** A string equal for two values iff MongoDB would consider them the same BSON value. */
export function bsonKey(value: unknown): string {
  return BSON.EJSON.stringify({ v: value }, { relaxed: false });
}

export function sameBsonValue(a: unknown, b: unknown): boolean {
  return bsonKey(a) === bsonKey(b);
}

/** A Date holding a real instant (an Invalid Date cannot be stored meaningfully). */
export function isValidDate(value: unknown): value is Date {
  return value instanceof Date && !Number.isNaN(value.getTime());
}

export function isPlainDocument(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  return !("_bsontype" in value) && !(value instanceof Date) && !(value instanceof RegExp);
}

/** A short description of what a field holds, for "expected X, found Y" messages. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "missing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (value instanceof Date) return isValidDate(value) ? "a date" : "an invalid date";
  if (typeof value === "object" && "_bsontype" in value) return `a ${String(value._bsontype)}`;
  if (typeof value === "object") return "a document";
  return `a ${typeof value} (${JSON.stringify(value)})`;
}

/** A non-negative integer (the driver hands int32, int64 within range and doubles as numbers). */
export function isSequenceNumber(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}
