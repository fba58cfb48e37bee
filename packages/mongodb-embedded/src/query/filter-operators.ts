// The field-level query operators ($eq, $gt, $in, $regex, $size, $elemMatch, ...), each
// compiled once into a test of the value a path reaches. mongod applies "scalar" operators to
// an array's elements as well as to the array itself, and only compares values of the same
// canonical type ("type bracketing": `{$gt: 5}` never matches a string).
import type { Document } from "bson";
import { canonicalRank, compareValues, valuesEqual, type StringComparator } from "./bson-order.js";
import { bsonTag, isNumeric, isPlainDocument, isRegex, toNumber } from "./bson-types.js";
import type { LeafPredicate } from "./filter-path.js";
import { queryError } from "./query-error.js";
import { compileRegex, regexMatches } from "./regex.js";
import { compileTypeTest } from "./type-operator.js";

/** How an operator applies at the end of a path. */
export interface CompiledOperator {
  /** Tests the reached value itself, without looking into arrays. */
  readonly test: LeafPredicate;
  /** Scalar operators also hold when any element of a reached array passes `test`. */
  readonly expandsArrays: boolean;
  /** `$ne`, `$nin`, `$exists: false`: the negation of a positive test over the whole path. */
  readonly negated: boolean;
}

export type SubFilterCompiler = (filter: Document) => (doc: Document) => boolean;

/** What operators compile with: nested filters ($elemMatch, $all) and the collation's order. */
export interface OperatorContext {
  readonly subFilter: SubFilterCompiler;
  /** A non-simple collation's string order; undefined compares strings as binary. */
  readonly strings?: StringComparator;
}

const scalar = (test: LeafPredicate): CompiledOperator => ({ test, expandsArrays: true, negated: false });
const whole = (test: LeafPredicate): CompiledOperator => ({ test, expandsArrays: false, negated: false });
const negation = (inner: CompiledOperator): CompiledOperator => ({ ...inner, negated: !inner.negated });

/**
 * The test an operator's argument stands for: regexes match strings (a collation never
 * applies to regexes, as in mongod), anything else is equality under the collation.
 */
export function equalityTest(expected: unknown, strings?: StringComparator): LeafPredicate {
  if (isRegex(expected)) {
    const regex = compileRegex(expected);
    return (value) => regexMatches(regex, value) || (isRegex(value) && valuesEqual(value, expected));
  }
  return (value) => valuesEqual(value, expected, strings);
}

function comparisonTest(
  expected: unknown,
  strings: StringComparator | undefined,
  accept: (order: number) => boolean,
): LeafPredicate {
  return (value) => {
    if (value === undefined) value = null;
    if (!sameCanonicalType(value, expected)) return false;
    return accept(compareValues(value, expected, strings));
  };
}

/** Values of different canonical types are never compared by $gt/$lt (type bracketing). */
function sameCanonicalType(a: unknown, b: unknown): boolean {
  return canonicalRank(a) === canonicalRank(b);
}

/**
 * The key a value has in an $in list's set, or undefined when only comparing it tells what it
 * equals. Numbers of any width that are exact doubles key as that double (SameValueZero agrees
 * with BSON equality: 0 equals -0, NaN equals NaN), strings as themselves when no collation
 * applies; a number never equals a string, so the two share one set.
 */
function inKey(value: unknown, strings: StringComparator | undefined): number | string | undefined {
  if (typeof value === "string") return strings === undefined ? value : undefined;
  if (typeof value === "number") return value;
  const tag = bsonTag(value);
  if (tag === "Int32" || tag === "Double") return toNumber(value);
  if (tag === "Long" && Number.isSafeInteger(toNumber(value))) return toNumber(value);
  return undefined;
}

/**
 * Binary data and ObjectIds by their bytes (a Binary's subtype too), which is how they compare
 * equal; a key space of its own, apart from inKey's strings.
 */
function bytesKey(value: unknown): string | undefined {
  const tag = bsonTag(value);
  if (tag === "Binary") {
    const binary = value as { sub_type: number; buffer: Uint8Array };
    return `${binary.sub_type}:${Buffer.from(binary.buffer).toString("hex")}`;
  }
  if (tag === "ObjectId") return (value as { toHexString(): string }).toHexString();
  return undefined;
}

/**
 * mongod looks a value up in the $in list's sorted set rather than comparing it with every
 * item; here items with a key (inKey, bytesKey) go in a Set, the others keep their own
 * equality test, and a value without a key is compared with every item. A sweep's
 * `{_id: {$in: <a page of ids>}}` then costs one lookup per document instead of one
 * comparison per id, and a change stream's `{"lsid.id": {$nin: <sessions>}}` one per event
 * (null, for the many events outside a transaction, decided once).
 */
function inTest(argument: unknown, strings: StringComparator | undefined): LeafPredicate {
  if (!Array.isArray(argument)) throw queryError("BadValue", "$in needs an array");
  const keyed = new Set<number | string>();
  const byBytes = new Set<string>();
  const others: LeafPredicate[] = [];
  const all = (argument as unknown[]).map((item) => {
    if (isPlainDocument(item) && Object.keys(item)[0]?.startsWith("$")) {
      throw queryError("BadValue", "cannot nest $ under $in");
    }
    const test = equalityTest(item, strings);
    const key = inKey(item, strings);
    const bytes = bytesKey(item);
    if (key !== undefined) keyed.add(key);
    else if (bytes !== undefined) byBytes.add(bytes);
    else others.push(test);
    return test;
  });
  const matchesNull = all.some((test) => test(null));
  return (value) => {
    const reached = value === undefined ? null : value;
    if (reached === null) return matchesNull;
    const key = inKey(reached, strings);
    if (key !== undefined) return keyed.has(key) || others.some((test) => test(reached));
    const bytes = bytesKey(reached);
    if (bytes !== undefined) return byBytes.has(bytes) || others.some((test) => test(reached));
    return all.some((test) => test(reached));
  };
}

function modTest(argument: unknown): LeafPredicate {
  if (!Array.isArray(argument) || argument.length !== 2) {
    throw queryError("BadValue", "malformed mod, needs to be an array of two numbers");
  }
  const divisor = Math.trunc(toNumber(argument[0]));
  const remainder = Math.trunc(toNumber(argument[1]));
  if (divisor === 0) throw queryError("BadValue", "divisor cannot be 0");
  return (value) => isNumeric(value) && Math.trunc(toNumber(value)) % divisor === remainder;
}

function sizeTest(argument: unknown): LeafPredicate {
  if (!isNumeric(argument)) throw queryError("BadValue", "$size needs a number");
  const size = toNumber(argument);
  if (size < 0 || !Number.isInteger(size))
    throw queryError("BadValue", "$size may not be negative or fractional");
  return (value) => Array.isArray(value) && value.length === size;
}

function elemMatchTest(argument: unknown, context: OperatorContext): LeafPredicate {
  if (!isPlainDocument(argument)) throw queryError("BadValue", "$elemMatch needs an Object");
  const firstKey = Object.keys(argument)[0] ?? "";
  const isValueForm = firstKey.startsWith("$") && !["$and", "$or", "$nor", "$expr"].includes(firstKey);
  if (isValueForm) {
    const element = compileOperatorSet(argument, context);
    return (value) => Array.isArray(value) && value.some(element);
  }
  const matches = context.subFilter(argument);
  return (value) =>
    Array.isArray(value) &&
    value.some((e) => (isPlainDocument(e) || Array.isArray(e)) && matches(e as Document));
}

function allTest(argument: unknown, context: OperatorContext): LeafPredicate {
  if (!Array.isArray(argument)) throw queryError("BadValue", "$all needs an array");
  if (argument.length === 0) return () => false;
  const tests = argument.map((item) => {
    if (isPlainDocument(item) && "$elemMatch" in item) return elemMatchTest(item.$elemMatch, context);
    const test = equalityTest(item, context.strings);
    return (value: unknown) => test(value) || (Array.isArray(value) && value.some(test));
  });
  return (value) => tests.every((test) => test(value));
}

/** Applies every operator of `{ $gt: 1, $lt: 5 }` to one value, without array expansion. */
export function compileOperatorSet(operators: Document, context: OperatorContext): LeafPredicate {
  const compiled = Object.entries(operators)
    .filter(([name]) => name !== "$options")
    .map(([name, argument]) => compileOperator(name, argument, operators, context));
  return (value) => compiled.every((op) => op.test(value) !== op.negated);
}

export function compileOperator(
  name: string,
  argument: unknown,
  siblings: Document,
  context: OperatorContext,
): CompiledOperator {
  const strings = context.strings;
  switch (name) {
    case "$eq":
      return scalar((value) => valuesEqual(value === undefined ? null : value, argument, strings));
    case "$ne":
      return negation(compileOperator("$eq", argument, siblings, context));
    case "$gt":
      return scalar(comparisonTest(argument, strings, (order) => order > 0));
    case "$gte":
      return scalar(comparisonTest(argument, strings, (order) => order >= 0));
    case "$lt":
      return scalar(comparisonTest(argument, strings, (order) => order < 0));
    case "$lte":
      return scalar(comparisonTest(argument, strings, (order) => order <= 0));
    case "$in":
      return scalar(inTest(argument, strings));
    case "$nin":
      return negation(scalar(inTest(argument, strings)));
    case "$exists":
      return { test: (value) => value !== undefined, expandsArrays: false, negated: !argument };
    case "$type":
      return scalar(compileTypeTest(argument));
    case "$size":
      return whole(sizeTest(argument));
    case "$mod":
      return scalar(modTest(argument));
    case "$regex": {
      const regex = compileRegex(argument, siblings.$options);
      return scalar((value) => regexMatches(regex, value));
    }
    case "$all":
      return whole(allTest(argument, context));
    case "$elemMatch":
      return whole(elemMatchTest(argument, context));
    case "$not":
      return negation(whole(notTest(argument, context)));
    case "$comment":
      return whole(() => true);
    default:
      throw queryError("BadValue", `unknown operator: ${name}`);
  }
}

/** `$not` negates a regex or an operator document, applied with array expansion as usual. */
function notTest(argument: unknown, context: OperatorContext): LeafPredicate {
  if (isRegex(argument)) {
    const test = equalityTest(argument);
    return (value) => test(value) || (Array.isArray(value) && value.some(test));
  }
  if (!isPlainDocument(argument) || Object.keys(argument).length === 0) {
    throw queryError("BadValue", "$not needs a regex or a document");
  }
  const operators = Object.entries(argument)
    .filter(([name]) => name !== "$options")
    .map(([name, value]) => {
      if (!name.startsWith("$")) throw queryError("BadValue", `unknown operator: ${name}`);
      return expandLeaf(compileOperator(name, value, argument, context));
    });
  return (value) => operators.every((test) => test(value));
}

/** The predicate a path's leaf value must satisfy (before any negation). */
export function expandLeaf(op: CompiledOperator): LeafPredicate {
  const base = op.test;
  const positive: LeafPredicate = op.expandsArrays
    ? (value) => base(value) || (Array.isArray(value) && value.some(base))
    : base;
  return op.negated ? (value) => !positive(value) : positive;
}
