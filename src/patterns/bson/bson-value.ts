// How the planners look at BSON values without a server: equality and map keys through
// canonical Extended JSON (type- and key-order-sensitive, as MongoDB compares documents, but
// numbers by value), numbers as read verbatim, and the type names used in skip reasons.
import { BSON, type Document } from "mongodb";
import { fieldNames, recordedOrder, withFieldOrderOf } from "@pattern-sidecar/bson-field-order";
import { quoted } from "./quoted-value.js";

/**
 * Options of every read whose documents a plan may write back, decoded by `verbatim`: the
 * driver hands each document over as its BSON bytes. Promoted (the driver's default), an
 * int64 or an integral double would come as a JS number and be written back as an int32: an
 * application reading a moved entry in Java would find an Integer where it stored a Long or a
 * Double. Not `promoteValues: false` on the read itself: the driver would then decode the
 * server's error replies so too, and its own checks of their codes (a change stream's
 * CursorNotFound, a not-primary error's failover) would miss.
 */
export const RAW: { raw: true } = { raw: true };

/**
 * A document read with RAW, its numbers as Int32, Long and Double objects, and its fields in
 * their BSON order wherever JS would list them otherwise (bson-field-order): written back, it is
 * the same bytes.
 */
export function verbatim(raw: unknown): Document {
  const bytes = raw as Uint8Array;
  return withFieldOrderOf(bytes, BSON.deserialize(bytes, { promoteValues: false }));
}

/** A document or null read with RAW (findOne), decoded by `verbatim`. */
export function verbatimOrNull(raw: unknown): Document | null {
  return raw === null ? null : verbatim(raw);
}

/** A string equal for two values iff MongoDB would consider them the same BSON value. */
export function bsonKey(value: unknown): string {
  const byValue = numbersByValue(value);
  // The keys a correction prints most (ids, references: strings and int32s), printed as
  // canonical Extended JSON prints them, without its walk of the value: in a backlog of
  // subset corrections, EJSON.stringify took a fifth of the sidecar's CPU.
  if (typeof byValue === "string") return `{"v":${JSON.stringify(byValue)}}`;
  if (isInt32(byValue)) return `{"v":{"$numberInt":"${byValue}"}}`;
  // The copies' and buckets' _ids: a subset correction keys twenty of them.
  if (isObjectId(byValue)) return `{"v":{"$oid":"${byValue.toHexString()}"}}`;
  return BSON.EJSON.stringify({ v: byValue }, { relaxed: false });
}

function isObjectId(value: unknown): value is BSON.ObjectId {
  return (value as { _bsontype?: unknown } | null)?._bsontype === "ObjectId";
}

function isInt32(value: unknown): value is number {
  return typeof value === "number" && (value | 0) === value && !Object.is(value, -0);
}

/**
 * `value` with its Int32, Double and Long numbers as JS numbers, as MongoDB compares them (by
 * value), and as the driver's default promotion hands them over: keys printed from it are the
 * same whether the value was read verbatim or not. A document whose field order JSON would
 * not keep (integer-like names after others) becomes its list of fields under a name no BSON
 * document can hold, so that keys printed from two orders differ, as MongoDB's values do.
 */
export function numbersByValue(value: unknown): unknown {
  return mapNumbers(value, (long) => long, true);
}

/** A field name no document holds (BSON names end at a zero byte). */
const FIELD_LIST = "\u0000fields";

/**
 * `value` as logs and messages print it (JSON): numbers by value, and an int64 a JS number
 * cannot hold as Extended JSON's `{ "$numberLong": "…" }`, every digit kept (a Long has no
 * JSON form of its own: it would print as its two 32-bit halves).
 */
export function printableValue(value: unknown): unknown {
  return mapNumbers(value, (long) => ({ $numberLong: long.toString() }), false);
}

/**
 * `value` with each number a JS number holds as that number, and each other Long as `wide`
 * makes it; with `keepOrder`, a document JSON would reorder as its list of fields.
 */
function mapNumbers(value: unknown, wide: (long: BSON.Long) => unknown, keepOrder: boolean): unknown {
  const number = numberValue(value);
  if (number !== undefined) return number;
  if (value instanceof BSON.Long) return wide(value);
  if (Array.isArray(value)) return value.map((element) => mapNumbers(element, wide, keepOrder));
  if (!isPlainDocument(value)) return value;
  const order = keepOrder ? recordedOrder(value) : undefined;
  if (order !== undefined)
    return { [FIELD_LIST]: order.map((name) => [name, mapNumbers(value[name], wide, keepOrder)]) };
  const mapped: Document = {};
  for (const name of fieldNames(value)) mapped[name] = mapNumbers(value[name], wide, keepOrder);
  return mapped;
}

/**
 * The number a value holds, whether read verbatim (an Int32, a Double, a Long within 2^53)
 * or promoted (a JS number); undefined for anything else, and for a Long a JS number cannot hold.
 */
export function numberValue(value: unknown): number | undefined {
  if (typeof value === "number") return value;
  if (typeof value !== "object" || value === null || !("_bsontype" in value)) return undefined;
  if (value instanceof BSON.Int32 || value instanceof BSON.Double) return value.valueOf();
  // A Timestamp is a Long to the bson library, but no number to MongoDB (a `seq` or `count`
  // holding one is a bad document, not 2^32 and more).
  if (value instanceof BSON.Long && !(value instanceof BSON.Timestamp)) {
    const number = value.toNumber();
    return Number.isSafeInteger(number) ? number : undefined;
  }
  return undefined;
}

/** Whether `bsonKey` would print `a` and `b` alike, mostly decided without printing them. */
export function sameBsonValue(a: unknown, b: unknown): boolean {
  // Printing both took a fifteenth of the sidecar's CPU in live product corrections (a
  // profile), which compare the ten reviews they would embed with the ten embedded.
  return sameByStructure(a, b) ?? bsonKey(a) === bsonKey(b);
}

/**
 * What `bsonKey(a) === bsonKey(b)` says, walking both values at once; undefined where only
 * their printing can tell: a document beside another type (a document may be spelled as
 * another type's Extended JSON), a field holding undefined (printing leaves it out), and the
 * BSON types besides numbers, ObjectIds and valid dates.
 */
function sameByStructure(a: unknown, b: unknown): boolean | undefined {
  if (isPlainDocument(a) && isPlainDocument(b)) return sameDocuments(a, b);
  if (isPlainDocument(a) || isPlainDocument(b)) return undefined;
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && sameArrays(a, b);
  const [x, y] = [numberValue(a), numberValue(b)];
  // Object.is: NaN is NaN, and -0 prints apart from 0, as bsonKey prints them.
  if (x !== undefined || y !== undefined) return x !== undefined && y !== undefined && Object.is(x, y);
  if (typeof a === "string" || typeof b === "string") return a === b;
  // In an array, undefined prints as null.
  if (a === undefined || b === undefined) return a === b ? true : undefined;
  if (a === null || b === null || typeof a === "boolean" || typeof b === "boolean") return a === b;
  if (isObjectId(a) && isObjectId(b)) return a.equals(b);
  if (isValidDate(a) && isValidDate(b)) return a.getTime() === b.getTime();
  return undefined;
}

/** Over `count` pairs: false if one differs, else undefined if one needs printing, else true. */
function sameEach(count: number, sameAt: (i: number) => boolean | undefined): boolean | undefined {
  let same: boolean | undefined = true;
  for (let i = 0; i < count; i++) {
    const pair = sameAt(i);
    if (pair === false) return false;
    if (pair === undefined) same = undefined;
  }
  return same;
}

function sameArrays(a: readonly unknown[], b: readonly unknown[]): boolean | undefined {
  return a.length === b.length && sameEach(a.length, (i) => sameByStructure(a[i], b[i]));
}

function sameDocuments(a: Record<string, unknown>, b: Record<string, unknown>): boolean | undefined {
  // bsonKey prints a document JSON would reorder as its list of fields, another shape.
  if ((recordedOrder(a) === undefined) !== (recordedOrder(b) === undefined)) return undefined;
  const [names, otherNames] = [fieldNames(a), fieldNames(b)];
  if (!names.every((name) => printsField(a, name)) || !otherNames.every((name) => printsField(b, name)))
    return undefined;
  if (names.length !== otherNames.length) return false;
  return sameEach(
    names.length,
    (i) => names[i] === otherNames[i] && sameByStructure(a[names[i]!], b[names[i]!]),
  );
}

/** Whether bsonKey prints the field `name` of `doc` as it is (undefined is left out, `__proto__` lost). */
function printsField(doc: Record<string, unknown>, name: string): boolean {
  return doc[name] !== undefined && name !== "__proto__";
}

/** A Date holding a real instant (an Invalid Date cannot be stored meaningfully). */
export function isValidDate(value: unknown): value is Date {
  return value instanceof Date && !Number.isNaN(value.getTime());
}

export function isPlainDocument(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  return !("_bsontype" in value) && !(value instanceof Date) && !(value instanceof RegExp);
}

/**
 * `value` in relaxed Extended JSON, as the sweep prints keys (`{ "$oid": … }`, numbers as
 * numbers), but an int64 a JS number cannot hold as `{ "$numberLong": "…" }`: relaxed, the
 * bson library would print it rounded to the nearest double, another document's key.
 */
export function relaxedExtendedJson(value: unknown): unknown {
  return (BSON.EJSON.serialize({ v: printableValue(value) }, { relaxed: true }) as { v: unknown }).v;
}

/** A document key for messages: JSON, numbers by value (a Long prints as its number), cut if long (quoted). */
export function printedKey(value: unknown): string {
  return quoted(printableValue(value));
}

/** A short description of what a field holds, for "expected X, found Y" messages. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "missing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (value instanceof Date) return isValidDate(value) ? "a date" : "an invalid date";
  const number = numberValue(value);
  if (number !== undefined) return `a number (${number})`;
  if (typeof value === "object" && "_bsontype" in value) return `a ${String(value._bsontype)}`;
  if (typeof value === "object") return "a document";
  return `a ${typeof value} (${quoted(value)})`;
}

/** The non-negative integer `value` holds (an int32, an int64 or an integral double), if it holds one. */
export function sequenceNumber(value: unknown): number | undefined {
  const number = numberValue(value);
  return number !== undefined && Number.isSafeInteger(number) && number >= 0 ? number : undefined;
}
