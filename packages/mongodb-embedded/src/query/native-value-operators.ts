// String, arithmetic and field operators of aggregation expressions.
import { Double, Long } from "bson";
import { bsonTag, isNumeric, isPlainDocument } from "./bson-types.js";
import { expressionError, expressionTypeName, isNullish } from "./expression-values.js";
import { hashedIndexKeyOf } from "./hashed-index-key.js";
import { bsonSize } from "./bson-size.js";
import { bsonSizeOf } from "./mingo-bson-size.js";
import { $convert } from "./native-convert.js";
import { NativeUnsupported, type OperatorCompiler } from "./native-expression-types.js";
import { compileOperands, compileExactly, namedArguments } from "./native-operands.js";

/** Splits on a string separator; null when either operand is nullish. */
const $split: OperatorCompiler = (argument, compiler) => {
  const [input, separator] = compileExactly("$split", argument, compiler, 2);
  return (frame) => {
    const text = input(frame);
    const delimiter = separator(frame);
    if (isNullish(text) || isNullish(delimiter)) return null;
    if (typeof text !== "string")
      throw expressionError(
        40085,
        `$split requires an expression that evaluates to a string as a first argument, found: ${expressionTypeName(text)}`,
      );
    if (typeof delimiter !== "string")
      throw expressionError(
        40086,
        `$split requires an expression that evaluates to a string as a second argument, found: ${expressionTypeName(delimiter)}`,
      );
    if (delimiter === "") throw expressionError(40087, "$split requires a non-empty separator");
    return text.split(delimiter);
  };
};

/** The widest numeric type among the operands, as mongod's $add types its sum. */
type SumKind = "int" | "long" | "double";

const SUM_RANK: Readonly<Record<SumKind, number>> = { int: 0, long: 1, double: 2 };

/**
 * Sums numbers with mongod's result type: int32 while it fits (else int64), int64 while it
 * fits (else double), double once any operand is one. Dates and Decimal128 go to mingo.
 */
const $add: OperatorCompiler = (argument, compiler) => {
  const parts = compileOperands("$add", argument, compiler);
  return (frame) => {
    let kind: SumKind = "int";
    let exact = 0n;
    let approximate = 0;
    for (const part of parts) {
      const value = part(frame);
      if (isNullish(value)) return null;
      const operandKind = addendKind(value);
      if (SUM_RANK[operandKind] > SUM_RANK[kind]) kind = operandKind;
      approximate += numberOf(value);
      if (kind !== "double") exact += integerOf(value);
    }
    return typedSum(kind, exact, approximate);
  };
};

function addendKind(value: unknown): SumKind {
  if (typeof value === "number")
    return Number.isInteger(value) && Math.abs(value) < 2 ** 31 ? "int" : "double";
  switch (bsonTag(value)) {
    case "Int32":
      return "int";
    case "Long":
      return "long";
    case "Double":
      return "double";
  }
  if (value instanceof Date || isNumeric(value)) throw new NativeUnsupported("$add of a date or decimal");
  throw expressionError(16554, `$add only supports numeric or date types, not ${expressionTypeName(value)}`);
}

const numberOf = (value: unknown): number =>
  typeof value === "number"
    ? value
    : bsonTag(value) === "Long"
      ? (value as Long).toNumber()
      : (value as Double).value;

const integerOf = (value: unknown): bigint =>
  bsonTag(value) === "Long" ? (value as Long).toBigInt() : BigInt(numberOf(value));

function typedSum(kind: SumKind, exact: bigint, approximate: number): unknown {
  if (kind === "double") return new Double(approximate);
  if (kind === "int" && exact >= -(2n ** 31n) && exact < 2n ** 31n) return Number(exact);
  if (exact >= -(2n ** 63n) && exact < 2n ** 63n) return Long.fromBigInt(exact);
  // An int64 overflow makes the sum a double, as in mongod.
  return new Double(Number(exact));
}

/**
 * `{field, input}` or the shorthand `"name"` (of the current document): the field itself,
 * never a path. Missing input or a non-document gives missing; null input gives null.
 */
const $getField: OperatorCompiler = (argument, compiler) => {
  const named =
    typeof argument === "string"
      ? { field: argument, input: "$$CURRENT" }
      : namedArguments("$getField", argument, ["field"], ["input"]);
  const field = named.field;
  if (typeof field !== "string" || field.startsWith("$"))
    throw new NativeUnsupported("$getField of a computed or $-prefixed field");
  const input = compiler.compile("input" in named ? named.input : "$$CURRENT");
  return (frame) => {
    const value = input(frame);
    if (value === null) return null;
    if (!isPlainDocument(value) || !Object.prototype.hasOwnProperty.call(value, field)) return undefined;
    return value[field];
  };
};

/** The expressions that name the document itself, whose size is remembered (query/bson-size.ts). */
const WHOLE_DOCUMENT = new Set(["$$ROOT", "$$CURRENT"]);

/**
 * A document's BSON size in bytes (mingo-bson-size.ts). The document itself (`$$ROOT`, as a
 * read that keeps small documents asks of every candidate) is a stored version or a stage's
 * output, never mutated: its size is measured once, as a cursor's batch measures it again.
 */
const $bsonSize: OperatorCompiler = (argument, compiler) => {
  const [input] = compileExactly("$bsonSize", argument, compiler, 1);
  const operand = Array.isArray(argument) ? argument[0] : argument;
  if (typeof operand === "string" && WHOLE_DOCUMENT.has(operand))
    return (frame) => {
      const doc = input(frame);
      return isPlainDocument(doc) ? bsonSize(doc) : bsonSizeOf(doc);
    };
  return (frame) => bsonSizeOf(input(frame));
};

/** The value's hashed-index key, an int64 (hashed-index-key.ts); missing hashes as null. */
const $toHashedIndexKey: OperatorCompiler = (argument, compiler) => {
  const [input] = compileExactly("$toHashedIndexKey", argument, compiler, 1);
  return (frame) => hashedIndexKeyOf(input(frame));
};

/**
 * The remainder, with the dividend's sign, typed as mongod's ExpressionMod types it: int for
 * two ints, long when either is one, double when either is one (left to mingo with a decimal).
 */
const $mod: OperatorCompiler = (argument, compiler) => {
  const [dividend, divisor] = compileExactly("$mod", argument, compiler, 2);
  return (frame) => {
    const left = dividend(frame);
    const right = divisor(frame);
    if (isNullish(left) || isNullish(right)) return null;
    const kinds = [modOperandKind(left, right), modOperandKind(right, left)];
    if (numberOf(right) === 0) throw expressionError(16610, "can't $mod by zero");
    if (kinds.includes("double")) return new Double(numberOf(left) % numberOf(right));
    const remainder = integerOf(left) % integerOf(right);
    return kinds.includes("long") ? Long.fromBigInt(remainder) : Number(remainder);
  };
};

function modOperandKind(value: unknown, other: unknown): SumKind {
  if (!isNumeric(value))
    throw expressionError(
      16611,
      `$mod only supports numeric types, not ${expressionTypeName(value)} and ${expressionTypeName(other)}`,
    );
  if (bsonTag(value) === "Decimal128") throw new NativeUnsupported("$mod of a decimal");
  return addendKind(value);
}

export const NATIVE_VALUE_OPERATORS: Readonly<Record<string, OperatorCompiler>> = {
  $split,
  $add,
  $mod,
  $toHashedIndexKey,
  $getField,
  $convert,
  $bsonSize,
};
