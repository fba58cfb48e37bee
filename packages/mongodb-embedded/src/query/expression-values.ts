// How aggregation expressions see values, as mongod's Value does: a missing field is a value
// of its own (below null in the BSON order, and not equal to it), "nullish" means null or
// missing, and truthiness is coerceToBool's.
import { ServerError } from "../errors.js";
import { compareValues } from "./bson-order.js";
import { bsonTypeOf, isNumeric, toNumber } from "./bson-types.js";

/** Aggregation truthiness: false, null, missing and numeric zero are false; "" and [] are true. */
export function isExpressionTrue(value: unknown): boolean {
  if (value === false || value === null || value === undefined) return false;
  if (isNumeric(value)) return toNumber(value) !== 0;
  return true;
}

export const isNullish = (value: unknown): boolean => value === null || value === undefined;

/**
 * The order of $eq, $gt, $in, $max: BSON order, with missing ranked below null (mongod's
 * canonical type of EOO is 0, null's 5), so that `{$eq: ["$absent", null]}` is false.
 */
export function compareExpressionValues(a: unknown, b: unknown): number {
  if (a === undefined || b === undefined) {
    if (a === b) return 0;
    return a === undefined ? -1 : 1;
  }
  return compareValues(a, b);
}

/** mongod's typeName: what `$type` returns and error messages name. */
export function expressionTypeName(value: unknown): string {
  return value === undefined ? "missing" : bsonTypeOf(value);
}

/** An error raised by an expression at run time, as mongod's uassert(code) reports it. */
export function expressionError(code: number, message: string): ServerError {
  return new ServerError(code, `Location${code}`, message);
}

/** A double as mongod's error messages print it (C++ stream, 6 significant digits). */
export function formatDouble(n: number): string {
  if (Number.isNaN(n)) return "nan";
  if (!Number.isFinite(n)) return n > 0 ? "inf" : "-inf";
  if (n === 0) return "0";
  const exponential = n.toExponential(5);
  const e = exponential.indexOf("e");
  const mantissa = exponential.slice(0, e);
  const exponent = Number(exponential.slice(e + 1));
  if (exponent < -4 || exponent >= 6) {
    const sign = exponent < 0 ? "-" : "+";
    return `${trimZeros(mantissa)}e${sign}${String(Math.abs(exponent)).padStart(2, "0")}`;
  }
  return trimZeros(n.toFixed(5 - exponent));
}

const trimZeros = (digits: string): string => (digits.includes(".") ? digits.replace(/\.?0+$/, "") : digits);
