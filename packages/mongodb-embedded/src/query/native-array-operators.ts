// Array operators of aggregation expressions, with mongod's errors for operands of the wrong
// type (the codes and messages of its uasserts).
import { isNumeric, isPlainDocument, toNumber } from "./bson-types.js";
import { setField } from "@pattern-sidecar/bson-field-order";
import {
  compareExpressionValues,
  expressionError,
  expressionTypeName,
  formatDouble,
  isExpressionTrue,
  isNullish,
} from "./expression-values.js";
import {
  NativeUnsupported,
  type Evaluator,
  type ExpressionCompiler,
  type OperatorCompiler,
} from "./native-expression-types.js";
import { compileOperands, compileExactly, compileWithOptional, namedArguments } from "./native-operands.js";

/** The value when it is an array; else mongod's error `code`, its message naming the value's type. */
function arrayOrFail(value: unknown, code: number, message: (type: string) => string): unknown[] {
  if (Array.isArray(value)) return value;
  throw expressionError(code, message(expressionTypeName(value)));
}

const $size: OperatorCompiler = (argument, compiler) => {
  const [operand] = compileExactly("$size", argument, compiler, 1);
  const message = (type: string) => `The argument to $size must be an array, but was of type: ${type}`;
  return (frame) => arrayOrFail(operand(frame), 17124, message).length;
};

/** $arrayElemAt and $first: null for nullish operands, missing out of bounds, negative from the end. */
function elementAt(operator: string, array: unknown, index: unknown, arity: number): unknown {
  if (isNullish(array) || isNullish(index)) return null;
  const which = arity === 1 ? "argument" : "first argument";
  const elements = arrayOrFail(
    array,
    28689,
    (type) => `${operator}'s ${which} must be an array, but is ${type}`,
  );
  const position = arrayIndex(operator, index);
  if (position < 0) return position + elements.length < 0 ? undefined : elements[position + elements.length];
  return elements[position];
}

function arrayIndex(operator: string, index: unknown): number {
  if (!isNumeric(index))
    throw expressionError(
      28690,
      `${operator}'s second argument must be a numeric value, but is ${expressionTypeName(index)}`,
    );
  const position = toNumber(index);
  if (!Number.isInteger(position) || position < -(2 ** 31) || position >= 2 ** 31)
    throw expressionError(
      28691,
      `${operator}'s second argument must be representable as a 32-bit integer: ${formatDouble(position)}`,
    );
  return position;
}

const $arrayElemAt: OperatorCompiler = (argument, compiler) => {
  const [array, index] = compileExactly("$arrayElemAt", argument, compiler, 2);
  return (frame) => elementAt("$arrayElemAt", array(frame), index(frame), 2);
};

const $first: OperatorCompiler = (argument, compiler) => {
  const [array] = compileExactly("$first", argument, compiler, 1);
  return (frame) => elementAt("$first", array(frame), 0, 1);
};

/** $slice's numeric operand as a 32-bit integer, else mongod's error: not numeric, or not representable. */
function sliceOperand(value: unknown, which: "Second" | "Third"): number {
  const [notNumeric, notInt32] = which === "Second" ? [28725, 28726] : [28727, 28728];
  const numeric = which === "Second" ? "must be a numeric value, but is" : "must be numeric, but is";
  if (!isNumeric(value))
    throw expressionError(
      notNumeric,
      `${which} argument to $slice ${numeric} of type: ${expressionTypeName(value)}`,
    );
  const number = toNumber(value);
  if (!Number.isInteger(number) || number < -(2 ** 31) || number >= 2 ** 31)
    throw expressionError(
      notInt32,
      `${which} argument to $slice can't be represented as a 32-bit integer: ${formatDouble(number)}`,
    );
  return number;
}

/**
 * $slice: [array, n] takes the first n entries (the last -n when negative); [array, position,
 * n] takes n (> 0) from position (from the end when negative). Null for a nullish array,
 * position or n; out-of-range positions clamp, as in mongod.
 */
const $slice: OperatorCompiler = (argument, compiler) => {
  const [array, second, third] = compileWithOptional("$slice", argument, compiler, 2);
  return (frame) => {
    const value = array(frame);
    const secondValue = second(frame);
    if (isNullish(value) || isNullish(secondValue)) return null;
    const elements = arrayOrFail(
      value,
      28724,
      (type) => `First argument to $slice must be an array, but is of type: ${type}`,
    );
    const first = sliceOperand(secondValue, "Second");
    if (!third)
      return first >= 0 ? elements.slice(0, first) : elements.slice(Math.max(0, elements.length + first));
    const start = first >= 0 ? Math.min(elements.length, first) : Math.max(0, elements.length + first);
    const countValue = third(frame);
    if (isNullish(countValue)) return null;
    const count = sliceOperand(countValue, "Third");
    if (count <= 0) throw expressionError(28729, `Third argument to $slice must be positive: ${count}`);
    return elements.slice(start, start + count);
  };
};

/** Null as soon as an operand is nullish (before later operands are checked), as in mongod. */
const $concatArrays: OperatorCompiler = (argument, compiler) => {
  const parts = compileOperands("$concatArrays", argument, compiler);
  return (frame) => {
    const result: unknown[] = [];
    for (const part of parts) {
      const value = part(frame);
      if (isNullish(value)) return null;
      for (const item of arrayOrFail(
        value,
        28664,
        (type) => `$concatArrays only supports arrays, not ${type}`,
      ))
        result.push(item);
    }
    return result;
  };
};

const $in: OperatorCompiler = (argument, compiler) => {
  const [needle, haystack] = compileExactly("$in", argument, compiler, 2);
  const message = (type: string) => `$in requires an array as a second argument, found: ${type}`;
  return (frame) => {
    const value = needle(frame);
    const array = arrayOrFail(haystack(frame), 40081, message);
    return array.some((item) => compareExpressionValues(value, item) === 0);
  };
};

const $anyElementTrue: OperatorCompiler = (argument, compiler) => {
  const [operand] = compileExactly("$anyElementTrue", argument, compiler, 1);
  const message = (type: string) => `$anyElementTrue's argument must be an array, but is ${type}`;
  return (frame) => arrayOrFail(operand(frame), 17041, message).some(isExpressionTrue);
};

const $objectToArray: OperatorCompiler = (argument, compiler) => {
  const [operand] = compileExactly("$objectToArray", argument, compiler, 1);
  return (frame) => {
    const value = operand(frame);
    if (isNullish(value)) return null;
    if (!isPlainDocument(value))
      throw expressionError(
        40390,
        `$objectToArray requires a document input, found: ${expressionTypeName(value)}`,
      );
    return Object.keys(value).map((k) => ({ k, v: value[k] }));
  };
};

/**
 * $arrayToObject from `[k, v]` pairs or `{k, v}` documents (the first element decides which, as
 * mongod's ExpressionArrayToObject does, src/mongo/db/pipeline/expression.cpp); a repeated key
 * keeps its first place and takes the last value. Natively, so that the values keep their BSON
 * types (mingo would see Int64 and Double as plain numbers).
 */
const $arrayToObject: OperatorCompiler = (argument, compiler) => {
  const [operand] = compileExactly("$arrayToObject", argument, compiler, 1);
  return (frame) => {
    const value = operand(frame);
    if (isNullish(value)) return null;
    const message = (type: string) => `$arrayToObject requires an array input, found: ${type}`;
    const elements = arrayOrFail(value, 40386, message);
    const result: Record<string, unknown> = {};
    if (elements.length === 0) return result;
    const pairs = Array.isArray(elements[0]);
    if (!pairs && !isPlainDocument(elements[0]))
      throw expressionError(
        40398,
        `Unrecognised input type format for $arrayToObject: ${expressionTypeName(elements[0])}`,
      );
    for (const element of elements) {
      const [key, entry] = pairs ? pairOf(element) : keyValueOf(element);
      if (key.includes("\0"))
        throw expressionError(4940400, "Key field cannot contain an embedded null byte");
      setField(result, key, entry);
    }
    return result;
  };
};

const CONSISTENT =
  "$arrayToObject requires a consistent input format. Elements must all be arrays or all be objects.";

function pairOf(element: unknown): [string, unknown] {
  if (!Array.isArray(element))
    throw expressionError(
      40396,
      `${CONSISTENT} Array was detected, now found: ${expressionTypeName(element)}`,
    );
  if (element.length !== 2)
    throw expressionError(
      40397,
      `$arrayToObject requires an array of size 2 arrays,found array of size: ${element.length}`,
    );
  const [key, value] = element as [unknown, unknown];
  if (typeof key !== "string")
    throw expressionError(
      40395,
      `$arrayToObject requires an array of key-value pairs, where the key must be of type string. Found key type: ${expressionTypeName(key)}`,
    );
  return [key, value];
}

function keyValueOf(element: unknown): [string, unknown] {
  if (!isPlainDocument(element))
    throw expressionError(
      40391,
      `${CONSISTENT} Object was detected, now found: ${expressionTypeName(element)}`,
    );
  const fields = Object.keys(element);
  if (fields.length !== 2)
    throw expressionError(
      40392,
      `$arrayToObject requires an object keys of 'k' and 'v'. Found incorrect number of keys:${fields.length}`,
    );
  if (!Object.hasOwn(element, "k") || !Object.hasOwn(element, "v"))
    throw expressionError(
      40393,
      "$arrayToObject requires an object with keys 'k' and 'v'. Missing either or both keys from: " +
        JSON.stringify(element),
    );
  const key: unknown = element.k;
  if (typeof key !== "string")
    throw expressionError(
      40394,
      `$arrayToObject requires an object with keys 'k' and 'v', where the value of 'k' must be of type string. Found type: ${expressionTypeName(key)}`,
    );
  return [key, element.v];
}

interface Iteration {
  input: Evaluator;
  slot: number;
  body: Evaluator;
}

/** $map's and $filter's input and body, the body compiled with the `as` variable (default "this"). */
function compileIteration(
  operator: string,
  argument: unknown,
  compiler: ExpressionCompiler,
  bodyName: string,
): Iteration {
  const named = namedArguments(operator, argument, ["input", bodyName], ["as"]);
  const name = named.as ?? "this";
  if (typeof name !== "string") throw new NativeUnsupported(`${operator} with a non-string 'as'`);
  const inner = compiler.withVariable(name);
  return {
    input: compiler.compile(named.input),
    slot: inner.slot,
    body: inner.compiler.compile(named[bodyName]),
  };
}

/** The input array, null when nullish; mongod's error (code) when it is anything else. */
function iterationInput(operator: string, code: number, value: unknown): unknown[] | null {
  if (isNullish(value)) return null;
  return arrayOrFail(value, code, (type) => `input to ${operator} must be an array not ${type}`);
}

/** $map and $filter: `visit` walks the input array, `each` evaluating the body for one element. */
function iterating(
  operator: string,
  code: number,
  bodyName: string,
  visit: (array: unknown[], each: (item: unknown) => unknown) => unknown[],
): OperatorCompiler {
  return (argument, compiler) => {
    const { input, slot, body } = compileIteration(operator, argument, compiler, bodyName);
    return (frame) => {
      const array = iterationInput(operator, code, input(frame));
      if (array === null) return null;
      return visit(array, (item) => {
        frame[slot] = item;
        return body(frame);
      });
    };
  };
}

/** An element whose result is missing becomes null: an array cannot hold "missing". */
const $map = iterating("$map", 16883, "in", (array, each) =>
  array.map((item) => {
    const value = each(item);
    return value === undefined ? null : value;
  }),
);

const $filter = iterating("$filter", 28651, "cond", (array, each) =>
  array.filter((item) => isExpressionTrue(each(item))),
);

/**
 * $max and $min as expressions (mongod's ExpressionFromAccumulator): one operand that is an
 * array offers its elements, otherwise every operand is offered; nullish values are ignored;
 * null when nothing is left. `sense` is 1 for the greatest, -1 for the least.
 */
function extreme(operator: string, sense: 1 | -1): OperatorCompiler {
  return (argument, compiler) => {
    const parts = compileOperands(operator, argument, compiler);
    return (frame) => {
      const values = parts.map((part) => part(frame));
      const offered = values.length === 1 && Array.isArray(values[0]) ? values[0] : values;
      let best: unknown = undefined;
      for (const value of offered) {
        if (isNullish(value)) continue;
        if (best === undefined || sense * compareExpressionValues(value, best) > 0) best = value;
      }
      return best === undefined ? null : best;
    };
  };
}

export const NATIVE_ARRAY_OPERATORS: Readonly<Record<string, OperatorCompiler>> = {
  $size,
  $arrayElemAt,
  $first,
  $slice,
  $concatArrays,
  $in,
  $anyElementTrue,
  $objectToArray,
  $arrayToObject,
  $map,
  $filter,
  $max: extreme("$max", 1),
  $min: extreme("$min", -1),
};
