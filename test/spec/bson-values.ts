// How the matcher sees BSON values coming from two sides: the test file (Extended JSON parsed into
// bson classes) and the driver (which promotes int32, int64 and double to JS numbers by default).
import { EJSON } from "bson";

/** A document in the matcher's sense: a plain object, not a BSON value class, array, Date or buffer. */
export function isPlainDocument(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  if (
    value instanceof Date ||
    value instanceof RegExp ||
    value instanceof Uint8Array ||
    value instanceof Map
  ) {
    return false;
  }
  return !("_bsontype" in value);
}

export function bsonTypeTag(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null || !("_bsontype" in value)) return undefined;
  return String((value as { _bsontype: unknown })._bsontype);
}

/** Numbers of every BSON flavour except Decimal128, as a bigint when integral (exact), else a number. */
export function numericValue(value: unknown): number | bigint | undefined {
  if (typeof value === "number") return Number.isInteger(value) ? BigInt(value) : value;
  if (typeof value === "bigint") return value;
  const tag = bsonTypeTag(value);
  if (tag === "Int32" || tag === "Double") return numericValue((value as { value: number }).value);
  if (tag === "Long") return BigInt((value as { toString(): string }).toString());
  return undefined;
}

/** Flexible numeric equality (format spec: 1 matches 1.0 whatever the integer width). */
export function numbersEqual(left: number | bigint, right: number | bigint): boolean {
  if (typeof left === "bigint" && typeof right === "bigint") return left === right;
  const leftNumber = Number(left);
  const rightNumber = Number(right);
  return leftNumber === rightNumber || (Number.isNaN(leftNumber) && Number.isNaN(rightNumber));
}

export function numberAtMost(value: number | bigint, limit: number | bigint): boolean {
  if (typeof value === "bigint" && typeof limit === "bigint") return value <= limit;
  return Number(value) <= Number(limit);
}

/**
 * The `$type` names an actual value can have. The driver hands back int32, int64 and double all as
 * JS numbers, so an integral number answers to all three names and a fractional one to "double".
 */
export function bsonTypeNames(value: unknown): string[] {
  if (value === undefined) return [];
  if (value === null) return ["null"];
  if (typeof value === "string") return ["string"];
  if (typeof value === "boolean") return ["bool"];
  if (typeof value === "number") {
    return Number.isInteger(value) ? ["int", "long", "double", "number"] : ["double", "number"];
  }
  if (typeof value === "bigint") return ["long", "number"];
  if (Array.isArray(value)) return ["array"];
  if (value instanceof Date) return ["date"];
  if (value instanceof RegExp) return ["regex"];
  if (value instanceof Uint8Array) return ["binData"];
  const tag = bsonTypeTag(value);
  if (tag === undefined) return ["object"];
  const names: Record<string, string[]> = {
    Int32: ["int", "number"],
    Double: ["double", "number"],
    Long: ["long", "number"],
    Decimal128: ["decimal", "number"],
    ObjectId: ["objectId"],
    Binary: ["binData"],
    UUID: ["binData"],
    Timestamp: ["timestamp"],
    BSONRegExp: ["regex"],
    Code: ["javascript", "javascriptWithScope"],
    BSONSymbol: ["symbol"],
    DBPointer: ["dbPointer"],
    MinKey: ["minKey"],
    MaxKey: ["maxKey"],
  };
  if (tag === "Code") return (value as { scope?: unknown }).scope ? ["javascriptWithScope"] : ["javascript"];
  return names[tag] ?? [tag];
}

/** Short, readable rendering of a value for a failure message. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  let text: string;
  try {
    text = EJSON.stringify(value, { relaxed: true });
  } catch {
    text = String(value);
  }
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
}

/** Canonical Extended JSON of a non-numeric scalar, for equality of the rarer BSON types. */
export function canonicalText(value: unknown): string {
  if (value instanceof RegExp) {
    return EJSON.stringify({
      v: { $regularExpression: { pattern: value.source, options: sortedFlags(value.flags) } },
    });
  }
  const tag = bsonTypeTag(value);
  if (tag === "BSONRegExp") {
    const regex = value as { pattern: string; options: string };
    return EJSON.stringify({
      v: { $regularExpression: { pattern: regex.pattern, options: sortedFlags(regex.options) } },
    });
  }
  return EJSON.stringify({ v: value }, { relaxed: false });
}

function sortedFlags(flags: string): string {
  return [...flags.replace(/[gyu]/g, "")].sort().join("");
}
