// MongoDB's total order over BSON values (the "BSON comparison order" of the manual): values
// of different types compare by a canonical type rank; numbers compare by value whatever
// their representation; documents compare field by field (type, then name, then value).
// String values (not field names, regexes or code) compare through a StringComparator, so a
// collation changes how strings order and which are equal, and nothing else.
import type { Binary, BSONRegExp, Long, ObjectId, Timestamp } from "bson";
import { bsonTag, bsonTypeOf, isNumeric, toNumber } from "./bson-types.js";
import { fieldNames } from "@pattern-sidecar/bson-field-order";

/** mongod's canonicalizeBSONType, with undefined ranked as null (a missing field sorts as null). */
export function canonicalRank(value: unknown): number {
  if (value === null || value === undefined) return 5;
  if (isNumeric(value)) return 10;
  switch (bsonTypeOf(value)) {
    case "minKey":
      return -1;
    case "string":
    case "symbol":
      return 15;
    case "object":
      return 20;
    case "array":
      return 25;
    case "binData":
      return 30;
    case "objectId":
      return 35;
    case "bool":
      return 40;
    case "date":
      return 45;
    case "timestamp":
      return 47;
    case "regex":
      return 50;
    case "javascript":
      return 60;
    case "maxKey":
      return 127;
    default:
      return 20;
  }
}

const sign = (n: number): number => (n < 0 ? -1 : n > 0 ? 1 : 0);

/** Orders two strings: <0, 0 or >0. A collation's comparator, or the simple binary one. */
export type StringComparator = (a: string, b: string) => number;

/** The "simple" collation: strings compare by their code units. */
export const compareBinaryStrings: StringComparator = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

/** Compares two values in MongoDB's BSON order; <0, 0 or >0. */
export function compareValues(
  a: unknown,
  b: unknown,
  strings: StringComparator = compareBinaryStrings,
): number {
  // The commonest pairs, decided as the general path below would, without ranking types.
  if (typeof a === "string" && typeof b === "string" && strings === compareBinaryStrings)
    return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "number" && typeof b === "number") return compareDoubles(a, b);
  const rankA = canonicalRank(a);
  const rankB = canonicalRank(b);
  if (rankA !== rankB) return rankA < rankB ? -1 : 1;
  switch (rankA) {
    case 5:
    case -1:
    case 127:
      return 0;
    case 10:
      return compareNumbers(a, b);
    case 15:
      return sign(strings(String(a), String(b)));
    case 20:
      return compareDocuments(a as Record<string, unknown>, b as Record<string, unknown>, strings);
    case 25:
      return compareArrays(a as unknown[], b as unknown[], strings);
    case 30:
      return compareBinary(a, b);
    case 35:
      return compareBytes((a as ObjectId).id, (b as ObjectId).id);
    case 40:
      return Number(a) - Number(b);
    case 45:
      return sign((a as Date).getTime() - (b as Date).getTime());
    case 47:
      return compareTimestamps(a as Timestamp, b as Timestamp);
    case 50:
      return compareRegexes(a, b);
    default:
      return compareStrings(String(a), String(b));
  }
}

/** Equality as `$eq` sees it: numeric across representations, field order significant. */
export function valuesEqual(a: unknown, b: unknown, strings?: StringComparator): boolean {
  return compareValues(a, b, strings) === 0;
}

const compareStrings = compareBinaryStrings;

function asBigInt(value: unknown): bigint | undefined {
  if (typeof value === "bigint") return value;
  if (bsonTag(value) === "Long") return (value as Long).toBigInt();
  return undefined;
}

/** A Long whose value a double holds exactly (|value| <= 2^53): its high word decides. */
function isExactAsDouble(value: unknown): boolean {
  if (bsonTag(value) !== "Long") return true;
  const high = (value as Long).high;
  return high >= -0x200000 && high < 0x200000;
}

/** Longs beyond 2^53 are compared exactly; Decimal128 is compared through a double. */
function compareNumbers(a: unknown, b: unknown): number {
  // Int32, Double and small Longs: as doubles, without building BigInts.
  if (typeof a !== "bigint" && typeof b !== "bigint" && isExactAsDouble(a) && isExactAsDouble(b))
    return compareDoubles(toNumber(a), toNumber(b));
  const bigA = asBigInt(a);
  const bigB = asBigInt(b);
  if (bigA !== undefined && bigB !== undefined) return bigA < bigB ? -1 : bigA > bigB ? 1 : 0;
  if (bigA !== undefined && !isSafe(bigA)) return -compareDoubleToBigInt(toNumber(b), bigA);
  if (bigB !== undefined && !isSafe(bigB)) return compareDoubleToBigInt(toNumber(a), bigB);
  return compareDoubles(toNumber(a), toNumber(b));
}

const isSafe = (n: bigint): boolean =>
  n <= BigInt(Number.MAX_SAFE_INTEGER) && n >= -BigInt(Number.MAX_SAFE_INTEGER);

/** NaN sorts below every other number and equals itself, as in mongod. */
function compareDoubles(x: number, y: number): number {
  if (Number.isNaN(x)) return Number.isNaN(y) ? 0 : -1;
  if (Number.isNaN(y)) return 1;
  return x < y ? -1 : x > y ? 1 : 0;
}

function compareDoubleToBigInt(x: number, big: bigint): number {
  if (Number.isNaN(x)) return -1;
  if (!Number.isFinite(x)) return x > 0 ? 1 : -1;
  const floor = BigInt(Math.floor(x));
  if (floor !== big) return floor < big ? -1 : 1;
  return x > Math.floor(x) ? 1 : 0;
}

function compareDocuments(
  a: Record<string, unknown>,
  b: Record<string, unknown>,
  strings: StringComparator,
): number {
  const keysA = fieldNames(a);
  const keysB = fieldNames(b);
  const shared = Math.min(keysA.length, keysB.length);
  for (let i = 0; i < shared; i++) {
    const nameA = keysA[i];
    const nameB = keysB[i];
    if (nameA === undefined || nameB === undefined) break;
    const valueA = a[nameA];
    const valueB = b[nameB];
    const byType = canonicalRank(valueA) - canonicalRank(valueB);
    if (byType !== 0) return sign(byType);
    const byName = compareStrings(nameA, nameB);
    if (byName !== 0) return byName;
    const byValue = compareValues(valueA, valueB, strings);
    if (byValue !== 0) return byValue;
  }
  return sign(keysA.length - keysB.length);
}

function compareArrays(a: unknown[], b: unknown[], strings: StringComparator): number {
  const shared = Math.min(a.length, b.length);
  for (let i = 0; i < shared; i++) {
    const order = compareValues(a[i], b[i], strings);
    if (order !== 0) return order;
  }
  return sign(a.length - b.length);
}

function binaryParts(value: unknown): { subtype: number; bytes: Uint8Array } {
  if (ArrayBuffer.isView(value)) {
    return { subtype: 0, bytes: new Uint8Array(value.buffer, value.byteOffset, value.byteLength) };
  }
  const binary = value as Binary;
  return { subtype: binary.sub_type, bytes: binary.buffer.subarray(0, binary.position) };
}

/** BinData orders by length, then subtype, then bytes. */
function compareBinary(a: unknown, b: unknown): number {
  const partsA = binaryParts(a);
  const partsB = binaryParts(b);
  if (partsA.bytes.length !== partsB.bytes.length) return sign(partsA.bytes.length - partsB.bytes.length);
  if (partsA.subtype !== partsB.subtype) return sign(partsA.subtype - partsB.subtype);
  return compareBytes(partsA.bytes, partsB.bytes);
}

/** Byte by byte, then the shorter first. */
function compareBytes(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(a, b);
}

function compareTimestamps(a: Timestamp, b: Timestamp): number {
  if (a.t !== b.t) return a.t < b.t ? -1 : 1;
  return sign(a.i - b.i);
}

function regexParts(value: unknown): [string, string] {
  if (value instanceof RegExp) return [value.source, value.flags];
  const regex = value as BSONRegExp;
  return [regex.pattern, regex.options];
}

function compareRegexes(a: unknown, b: unknown): number {
  const [patternA, flagsA] = regexParts(a);
  const [patternB, flagsB] = regexParts(b);
  return compareStrings(patternA, patternB) || compareStrings(flagsA, flagsB);
}
