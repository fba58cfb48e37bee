// $inc and $mul arithmetic with mongod's type promotion: the result has the widest operand
// type (int32 < int64 < double < decimal); int32 overflow widens to int64 and int64 overflow
// fails (SafeNum in mongod). Plain JS numbers are typed as the driver encodes them: int32 when they are
// integers in int32 range, double otherwise.
import { Decimal128, Double, Int32, Long } from "bson";
import { bsonTag, toNumber } from "./bson-types.js";
import { queryError } from "./query-error.js";

type NumericKind = 0 | 1 | 2 | 3; // int32, int64, double, decimal

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function kindOf(value: unknown): NumericKind {
  switch (bsonTag(value)) {
    case "Int32":
      return 0;
    case "Long":
      return 1;
    case "Double":
      return 2;
    case "Decimal128":
      return 3;
  }
  if (typeof value === "bigint") return 1;
  const n = value as number;
  return Number.isInteger(n) && n >= INT32_MIN && n <= INT32_MAX ? 0 : 2;
}

function toBigInt(value: unknown): bigint {
  if (typeof value === "bigint") return value;
  if (bsonTag(value) === "Long") return (value as Long).toBigInt();
  return BigInt(toNumber(value));
}

const isWrapped = (value: unknown): boolean => typeof value !== "number";

export type ArithmeticOperation = "add" | "multiply";

/** `current (op) operand`, typed as mongod would store it. */
export function combineNumbers(current: unknown, operand: unknown, operation: ArithmeticOperation): unknown {
  const kind = Math.max(kindOf(current), kindOf(operand)) as NumericKind;
  const plainInputs = !isWrapped(current) && !isWrapped(operand);
  if (kind === 3) return decimalResult(current, operand, operation);
  if (kind === 2) return doubleResult(toNumber(current), toNumber(operand), operation, plainInputs);
  if (kind === 1) return int64Result(toBigInt(current), toBigInt(operand), operation);
  const result =
    operation === "add" ? toNumber(current) + toNumber(operand) : toNumber(current) * toNumber(operand);
  if (result >= INT32_MIN && result <= INT32_MAX) return plainInputs ? result : new Int32(result);
  return int64Result(toBigInt(current), toBigInt(operand), operation);
}

function int64Result(a: bigint, b: bigint, operation: ArithmeticOperation): unknown {
  const result = operation === "add" ? a + b : a * b;
  if (result >= INT64_MIN && result <= INT64_MAX) return Long.fromBigInt(result);
  // mongod's SafeNum has no wider integer: an int64 overflow fails the update.
  throw queryError(
    "BadValue",
    `Failed to apply ${operation === "add" ? "$inc" : "$mul"}: int64 overflow of ${a} and ${b}`,
  );
}

function doubleResult(a: number, b: number, operation: ArithmeticOperation, plainInputs: boolean): unknown {
  const result = operation === "add" ? a + b : a * b;
  // An integral double would be re-encoded as an int32 by the serializer; the wrapper keeps it a double.
  if (plainInputs && !Number.isInteger(result)) return result;
  return new Double(result);
}

function decimalResult(a: unknown, b: unknown, operation: ArithmeticOperation): Decimal128 {
  // bson has no decimal arithmetic; going through doubles loses digits beyond ~15.
  const result = operation === "add" ? toNumber(a) + toNumber(b) : toNumber(a) * toNumber(b);
  return Decimal128.fromString(String(result));
}

/** The zero `$mul` multiplies when the field is missing, of the operand's type. */
export function zeroLike(operand: unknown): unknown {
  return combineNumbers(isWrapped(operand) ? new Int32(0) : 0, operand, "multiply");
}
