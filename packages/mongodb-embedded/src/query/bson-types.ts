// How a JS value maps onto a BSON type. We look at `_bsontype` rather than `instanceof` so
// that values built by another copy of the `bson` package (the driver's) are recognised too.
import type { Decimal128, Double, Int32, Long } from "bson";

/** The BSON type names `$type` accepts, as mongod spells them. */
export type BsonTypeName =
  | "minKey"
  | "null"
  | "undefined"
  | "double"
  | "int"
  | "long"
  | "decimal"
  | "string"
  | "symbol"
  | "object"
  | "array"
  | "binData"
  | "objectId"
  | "bool"
  | "date"
  | "timestamp"
  | "regex"
  | "javascript"
  | "dbPointer"
  | "maxKey";

export function bsonTag(value: unknown): string | undefined {
  if (value === null || typeof value !== "object") return undefined;
  const tag = (value as { _bsontype?: unknown })._bsontype;
  return typeof tag === "string" ? tag : undefined;
}

export function isNumeric(value: unknown): boolean {
  if (typeof value === "number" || typeof value === "bigint") return true;
  const tag = bsonTag(value);
  return tag === "Int32" || tag === "Double" || tag === "Long" || tag === "Decimal128";
}

export function isPlainDocument(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  if (bsonTag(value) !== undefined) return false;
  if (value instanceof Date || value instanceof RegExp || ArrayBuffer.isView(value)) return false;
  return true;
}

export function isRegex(value: unknown): boolean {
  return value instanceof RegExp || bsonTag(value) === "BSONRegExp";
}

/** The BSON type of a value; JS numbers are "int" when they fit an int32 (as the driver encodes them). */
export function bsonTypeOf(value: unknown): BsonTypeName {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  if (typeof value === "number")
    return Number.isInteger(value) && Math.abs(value) < 2 ** 31 ? "int" : "double";
  if (typeof value === "bigint") return "long";
  if (typeof value === "string") return "string";
  if (typeof value === "boolean") return "bool";
  if (Array.isArray(value)) return "array";
  if (value instanceof Date) return "date";
  if (value instanceof RegExp) return "regex";
  if (ArrayBuffer.isView(value)) return "binData";
  return BSON_TAG_TYPES[bsonTag(value) ?? ""] ?? "object";
}

const BSON_TAG_TYPES: Record<string, BsonTypeName> = {
  Int32: "int",
  Double: "double",
  Long: "long",
  Decimal128: "decimal",
  ObjectId: "objectId",
  Timestamp: "timestamp",
  Binary: "binData",
  BSONRegExp: "regex",
  MinKey: "minKey",
  MaxKey: "maxKey",
  Code: "javascript",
  BSONSymbol: "symbol",
  DBRef: "object",
};

/** A numeric value as a JS number (Decimal128 and big Longs lose precision). */
export function toNumber(value: unknown): number {
  if (typeof value === "number") return value;
  if (typeof value === "bigint") return Number(value);
  const tag = bsonTag(value);
  if (tag === "Int32" || tag === "Double") return (value as Int32 | Double).value;
  if (tag === "Long") return (value as Long).toNumber();
  if (tag === "Decimal128") return Number((value as Decimal128).toString());
  return NaN;
}
