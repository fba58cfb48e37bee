// `$convert` to "long", as the sidecar's filters use it to read an array index out of an
// updatedFields key ("items.12"). Other targets, and `to` computed per document, stay with
// mingo. A failed conversion answers onError when given, else mongod's ConversionFailure.
import { Long } from "bson";
import { ServerError } from "../errors.js";
import { bsonTag, bsonTypeOf } from "./bson-types.js";
import { formatDouble, isNullish } from "./expression-values.js";
import { NativeUnsupported, type Evaluator, type OperatorCompiler } from "./native-expression-types.js";
import { namedArguments } from "./native-operands.js";

const LONG_TARGETS = new Set<unknown>(["long", 18]);
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Thrown by a conversion, caught for onError; mongod's code 241 and its message around `detail`. */
class ConversionFailure extends ServerError {
  constructor(what: string, detail = "") {
    super(241, "ConversionFailure", `${what} in $convert with no onError value${detail}`);
  }
}

export const $convert: OperatorCompiler = (argument, compiler) => {
  const named = namedArguments("$convert", argument, ["input", "to"], ["onError", "onNull"]);
  const to = typeof named.to === "number" || typeof named.to === "string" ? named.to : bsonNumber(named.to);
  if (!LONG_TARGETS.has(to)) throw new NativeUnsupported(`$convert to ${String(named.to)}`);
  const input = compiler.compile(named.input);
  const onError = "onError" in named ? compiler.compile(named.onError) : undefined;
  const onNull = "onNull" in named ? compiler.compile(named.onNull) : undefined;
  return (frame) => {
    const value = input(frame);
    if (isNullish(value)) return onNull ? onNull(frame) : null;
    return convertOrElse(value, onError, frame);
  };
};

function bsonNumber(value: unknown): unknown {
  const tag = bsonTag(value);
  return tag === "Int32" || tag === "Double" ? (value as { value: number }).value : value;
}

/** Up to 15 digits: a double holds the value exactly, so no BigInt is needed. */
const SHORT_DECIMAL = /^[+-]?[0-9]{1,15}$/;

function convertOrElse(value: unknown, onError: Evaluator | undefined, frame: unknown[]): unknown {
  // The commonest input (an array index read out of a path), parsed as parseInt64 would.
  if (typeof value === "string" && SHORT_DECIMAL.test(value)) return Long.fromNumber(Number(value));
  try {
    return Long.fromBigInt(toInt64(value));
  } catch (error) {
    if (onError && error instanceof ConversionFailure) return onError(frame);
    throw error;
  }
}

/** mongod's conversions to long, by the input's type. */
function toInt64(value: unknown): bigint {
  switch (bsonTypeOf(value)) {
    case "int":
      return BigInt(typeof value === "number" ? value : (value as { value: number }).value);
    case "long":
      return typeof value === "bigint" ? value : (value as Long).toBigInt();
    case "double":
      return truncateDouble(typeof value === "number" ? value : (value as { value: number }).value);
    case "bool":
      return value ? 1n : 0n;
    case "date":
      return BigInt((value as Date).getTime());
    case "string":
      return parseInt64(value as string);
    case "decimal":
      throw new NativeUnsupported("$convert of a decimal");
    default:
      throw new ConversionFailure(`Unsupported conversion from ${bsonTypeOf(value)} to long`);
  }
}

function truncateDouble(n: number): bigint {
  if (Number.isNaN(n)) throw new ConversionFailure("Attempt to convert NaN value to integer type");
  if (!Number.isFinite(n)) throw new ConversionFailure("Attempt to convert infinity value to integer type");
  // 2^63 is exactly representable; every double below it truncates into range.
  if (n < -(2 ** 63) || n >= 2 ** 63)
    throw new ConversionFailure("Conversion would overflow target type", `: ${formatDouble(n)}`);
  return BigInt(Math.trunc(n));
}

/** mongod's NumberParser in base 10: an optional sign and digits, nothing else (no spaces, no "0x"). */
function parseInt64(text: string): bigint {
  if (/^0[xX]/.test(text)) throw new ConversionFailure("Illegal hexadecimal input", `: ${text}`);
  const digits = text.replace(/^[+-]/, "");
  if (digits === "") throw parseFailure(text, "No digits");
  if (!/^[0-9]/.test(digits)) throw parseFailure(text, "Did not consume any digits");
  if (!/^[0-9]+$/.test(digits)) throw parseFailure(text, "Did not consume whole string.");
  const value = text.startsWith("-") ? -BigInt(digits) : BigInt(digits);
  if (value < INT64_MIN || value > INT64_MAX) throw parseFailure(text, "Overflow");
  return value;
}

function parseFailure(text: string, reason: string): ConversionFailure {
  return new ConversionFailure(`Failed to parse number '${text}'`, `: ${reason}`);
}
