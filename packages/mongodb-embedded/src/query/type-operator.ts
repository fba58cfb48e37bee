// `$type` accepts BSON type numbers, their string aliases and "number" (any numeric type).
import { bsonTypeOf, isNumeric, type BsonTypeName } from "./bson-types.js";
import { queryError } from "./query-error.js";

const TYPE_NUMBERS: Record<number, BsonTypeName> = {
  1: "double",
  2: "string",
  3: "object",
  4: "array",
  5: "binData",
  6: "undefined",
  7: "objectId",
  8: "bool",
  9: "date",
  10: "null",
  11: "regex",
  12: "dbPointer",
  13: "javascript",
  14: "symbol",
  16: "int",
  17: "timestamp",
  18: "long",
  19: "decimal",
  [-1]: "minKey",
  127: "maxKey",
};

const TYPE_ALIASES = new Set<string>([...Object.values(TYPE_NUMBERS), "number"]);

function parseTypeSpecifier(spec: unknown): BsonTypeName | "number" {
  if (typeof spec === "string") {
    if (!TYPE_ALIASES.has(spec)) throw queryError("BadValue", `Unknown type name alias: ${spec}`);
    return spec as BsonTypeName | "number";
  }
  if (isNumeric(spec)) {
    const name = TYPE_NUMBERS[Number(spec)];
    if (name === undefined) throw queryError("BadValue", `Invalid numerical type code: ${String(spec)}`);
    return name;
  }
  throw queryError("TypeMismatch", "type must be represented as a number or a string");
}

/** A test for one value (not expanding arrays) against a `$type` argument. */
export function compileTypeTest(argument: unknown): (value: unknown) => boolean {
  const specs = Array.isArray(argument) ? argument : [argument];
  if (specs.length === 0) throw queryError("FailedToParse", "$type must match at least one type");
  const wanted = new Set(specs.map(parseTypeSpecifier));
  return (value) => {
    if (value === undefined) return false;
    if (wanted.has("number") && isNumeric(value)) return true;
    return wanted.has(bsonTypeOf(value));
  };
}
