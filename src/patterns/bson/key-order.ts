// Paging by a key (`{key: {$gt: last}}` sorted by it) must not stop at the end of the last
// key's type: MongoDB's comparison operators only match values of the query value's type,
// while the index, and a sort, order every type after another. Each later type is its own
// range, `$gte` that type's smallest value, read after the last key's own type is done.
import { Binary, ObjectId, Timestamp, type Document } from "mongodb";

/** MongoDB's order of the types a key may hold, each with its smallest value. */
const TYPE_BRACKETS: ReadonlyArray<{ name: string; smallest: unknown }> = [
  { name: "number", smallest: -Infinity },
  { name: "string", smallest: "" },
  { name: "object", smallest: {} },
  { name: "binData", smallest: new Binary(Buffer.alloc(0)) },
  { name: "objectId", smallest: new ObjectId("000000000000000000000000") },
  { name: "bool", smallest: false },
  { name: "date", smallest: new Date(-8.64e15) },
  { name: "timestamp", smallest: new Timestamp({ t: 0, i: 0 }) },
];

const BSON_TYPE_NAMES: Record<string, string> = {
  Int32: "number",
  Long: "number",
  Double: "number",
  Decimal128: "number",
  Binary: "binData",
  ObjectId: "objectId",
  Timestamp: "timestamp",
  MinKey: "MinKey",
};

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "number") return "number";
  if (typeof value === "string") return "string";
  if (typeof value === "boolean") return "bool";
  if (value instanceof Date) return "date";
  if (typeof value !== "object" || value === null) return "";
  const bsonType = (value as { _bsontype?: string })._bsontype;
  return bsonType === undefined ? "object" : (BSON_TYPE_NAMES[bsonType] ?? "");
}

function bracketOf(value: unknown): number {
  const name = typeName(value);
  return TYPE_BRACKETS.findIndex((bracket) => bracket.name === name);
}

/** Types that sort before every bracket of the table: after one, every bracket is later. */
const BEFORE_THE_TABLE = new Set(["null", "MinKey"]);

/**
 * The ranges of `field` that sort after `after`, one per type, in MongoDB's order: each is
 * one index range, so a query over one is index-bounded on any server. With `after`
 * undefined, every present non-null value.
 */
export function keyRangesAfter(field: string, after: unknown): Document[] {
  const brackets = TYPE_BRACKETS.map(({ smallest }) => ({ [field]: { $gte: smallest } }));
  if (after === undefined) return brackets;
  const sameType = { [field]: { $gt: after } };
  const bracket = bracketOf(after);
  if (bracket >= 0) return [sameType, ...brackets.slice(bracket + 1)];
  // A type outside the table (MaxKey, a regex) only pages within its own type.
  return BEFORE_THE_TABLE.has(typeName(after)) ? [sameType, ...brackets] : [sameType];
}

/** Every document whose `field` sorts after `after` (see keyRangesAfter), as one filter. */
export function keysAfter(field: string, after: unknown): Document {
  return { $or: keyRangesAfter(field, after) };
}
