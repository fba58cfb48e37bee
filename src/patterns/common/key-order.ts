// Paging by a key (`{key: {$gt: last}}` sorted by it) must not stop at the end of the last
// key's type: MongoDB's comparison operators only match values of the query value's type,
// while the index, and a sort, order every type after another. Each later type's bracket is
// added as its own `$gte` of that type's smallest value, so the union stays index-bounded.
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
};

function typeName(value: unknown): string {
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

/**
 * Matches the documents whose `field` sorts after `after` in MongoDB's order; with `after`
 * undefined, every document whose `field` is present and not null.
 */
export function keysAfter(field: string, after: unknown): Document {
  if (after === undefined)
    return { $or: TYPE_BRACKETS.map(({ smallest }) => ({ [field]: { $gte: smallest } })) };
  const bracket = bracketOf(after);
  // A type outside the table (MinKey, say) only pages within its own type.
  if (bracket < 0) return { [field]: { $gt: after } };
  const later = TYPE_BRACKETS.slice(bracket + 1).map(({ smallest }) => ({ [field]: { $gte: smallest } }));
  return { $or: [{ [field]: { $gt: after } }, ...later] };
}
