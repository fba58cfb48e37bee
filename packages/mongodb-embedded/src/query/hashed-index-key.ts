// $toHashedIndexKey: the hash mongod gives a value in a hashed index (BSONElementHasher::hash64
// with seed 0, src/mongo/db/hasher.cpp): MD5 over the seed, then per element its canonical
// type, (inside a document) its name, and its value, a number squashed to an int64 first.
import { createHash, type Hash } from "node:crypto";
import { evalExpr } from "mingo/core";
import type { Options } from "mingo/types";
import { Long, type Binary, type BSONRegExp, type Code, type ObjectId, type Timestamp } from "bson";
import { bsonTag, bsonTypeOf, toNumber, type BsonTypeName } from "./bson-types.js";
import { expressionError } from "./expression-values.js";

/** mongod's canonicalizeBSONType (src/mongo/bson/bsontypes.h): numbers share one, as do strings and symbols. */
const CANONICAL_TYPE: Readonly<Record<BsonTypeName, number>> = {
  minKey: -1,
  undefined: 0,
  null: 5,
  double: 10,
  int: 10,
  long: 10,
  decimal: 10,
  string: 15,
  symbol: 15,
  object: 20,
  array: 25,
  binData: 30,
  objectId: 35,
  bool: 40,
  date: 45,
  timestamp: 47,
  regex: 50,
  dbPointer: 55,
  javascript: 60,
  maxKey: 127,
};

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** The hash of `value` as an int64; null and missing hash alike, as a hashed index keys them. */
export function hashedIndexKeyOf(value: unknown): Long {
  const md5 = createHash("md5");
  md5.update(int32(0));
  hashElement(md5, value === undefined ? null : value, undefined);
  return Long.fromBigInt(md5.digest().readBigInt64LE(0));
}

function hashElement(md5: Hash, value: unknown, name: string | undefined): void {
  const type = bsonTypeOf(value);
  md5.update(int32(CANONICAL_TYPE[type]));
  if (name !== undefined) md5.update(cString(name));
  if (type === "object" || type === "array") {
    hashEmbedded(md5, value as Record<string, unknown> | unknown[]);
  } else {
    md5.update(valueBytes(type, value));
  }
}

/** Each element with its name, then the document's terminating EOO: type 0, no name, no value. */
function hashEmbedded(md5: Hash, value: Record<string, unknown> | unknown[]): void {
  const entries = Array.isArray(value)
    ? value.map((item, index) => [String(index), item] as const)
    : Object.entries(value).filter(([, field]) => field !== undefined);
  for (const [name, field] of entries) hashElement(md5, field, name);
  md5.update(int32(0));
}

function valueBytes(type: BsonTypeName, value: unknown): Buffer {
  switch (type) {
    case "double":
    case "int":
    case "long":
    case "decimal":
      return int64(numberForHash(value));
    case "string":
    case "symbol":
      return bsonString(String(typeof value === "string" ? value : (value as { value: string }).value));
    case "javascript":
      return bsonString((value as Code).code);
    case "objectId":
      return Buffer.from((value as ObjectId).id);
    case "bool":
      return Buffer.from([value ? 1 : 0]);
    case "date":
      return int64(BigInt((value as Date).getTime()));
    case "timestamp":
      return int64((value as Timestamp).toBigInt());
    case "binData":
      return binaryBytes(value);
    case "regex":
      return regexBytes(value);
    case "null":
    case "undefined":
    case "minKey":
    case "maxKey":
      return Buffer.alloc(0);
    default:
      throw expressionError(2, `$toHashedIndexKey cannot hash a value of type ${type}`);
  }
}

/**
 * BSONElement::safeNumberLongForHash: an integer as itself; a double (or decimal) cut towards
 * zero, NaN as 0, clamped to the int64 range.
 */
function numberForHash(value: unknown): bigint {
  if (typeof value === "bigint") return value;
  if (bsonTag(value) === "Long") return (value as Long).toBigInt();
  const number = toNumber(value);
  if (Number.isNaN(number)) return 0n;
  if (number >= 2 ** 63) return INT64_MAX;
  if (number < -(2 ** 63)) return INT64_MIN;
  return BigInt(Math.trunc(number));
}

function binaryBytes(value: unknown): Buffer {
  const bytes = ArrayBuffer.isView(value)
    ? Buffer.from(value.buffer, value.byteOffset, value.byteLength)
    : Buffer.from((value as Binary).buffer.subarray(0, (value as Binary).position));
  const subtype = ArrayBuffer.isView(value) ? 0 : (value as Binary).sub_type;
  return Buffer.concat([int32(bytes.length), Buffer.from([subtype]), bytes]);
}

function regexBytes(value: unknown): Buffer {
  const { pattern, flags } =
    value instanceof RegExp
      ? { pattern: value.source, flags: value.flags }
      : { pattern: (value as BSONRegExp).pattern, flags: (value as BSONRegExp).options };
  return Buffer.concat([cString(pattern), cString([...flags].sort().join(""))]);
}

function int32(value: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeInt32LE(value);
  return bytes;
}

function int64(value: bigint): Buffer {
  const bytes = Buffer.alloc(8);
  bytes.writeBigInt64LE(value);
  return bytes;
}

function cString(value: string): Buffer {
  return Buffer.concat([Buffer.from(value, "utf8"), Buffer.from([0])]);
}

/** A BSON string's value: its length counting the NUL, its UTF-8 bytes, the NUL. */
function bsonString(value: string): Buffer {
  const text = Buffer.from(value, "utf8");
  return Buffer.concat([int32(text.length + 1), text, Buffer.from([0])]);
}

/**
 * The operator as mingo calls it ($project, $addFields ...). mingo sees an int64 as a JS number
 * (mingo-view.ts), so one past 2^53 hashes as its nearest double there; $match's `$expr` and
 * change-stream filters evaluate natively, exactly (native-value-operators.ts).
 */
export function $toHashedIndexKey(obj: unknown, expr: unknown, options: Options): Long {
  return hashedIndexKeyOf(evalExpr(obj, expr, options));
}
