// Array operators of aggregation expressions, with mongod's errors for operands of the wrong
// type (the codes and messages of its uasserts).
import { isNumeric, isPlainDocument, toNumber } from "./bson-types.js";
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
import { compileOperands, exactly, namedArguments } from "./native-operands.js";

const $size: OperatorCompiler = (argument, compiler) => {
  const [operand] = compileOperands("$size", argument, compiler, exactly(1));
  return (frame) => {
    const array = operand(frame);
    if (!Array.isArray(array))
      throw expressionError(
        17124,
        `The argument to $size must be an array, but was of type: ${expressionTypeName(array)}`,
      );
    return array.length;
  };
};

/** $arrayElemAt and $first: null for nullish operands, missing out of bounds, negative from the end. */
function elementAt(operator: string, array: unknown, index: unknown, arity: number): unknown {
  if (isNullish(array) || isNullish(index)) return null;
  if (!Array.isArray(array)) {
    const which = arity === 1 ? "argument" : "first argument";
    throw expressionError(
      28689,
      `${operator}'s ${which} must be an array, but is ${expressionTypeName(array)}`,
    );
  }
  const position = arrayIndex(operator, index);
  if (position < 0) return position + array.length < 0 ? undefined : array[position + array.length];
  return array[position];
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
  const [array, index] = compileOperands("$arrayElemAt", argument, compiler, exactly(2));
  return (frame) => elementAt("$arrayElemAt", array(frame), index(frame), 2);
};

const $first: OperatorCompiler = (argument, compiler) => {
  const [array] = compileOperands("$first", argument, compiler, exactly(1));
  return (frame) => elementAt("$first", array(frame), 0, 1);
};

/** Null as soon as an operand is nullish (before later operands are checked), as in mongod. */
const $concatArrays: OperatorCompiler = (argument, compiler) => {
  const parts = compileOperands("$concatArrays", argument, compiler);
  return (frame) => {
    const result: unknown[] = [];
    for (const part of parts) {
      const value = part(frame);
      if (isNullish(value)) return null;
      if (!Array.isArray(value))
        throw expressionError(28664, `$concatArrays only supports arrays, not ${expressionTypeName(value)}`);
      for (const item of value) result.push(item);
    }
    return result;
  };
};

const $in: OperatorCompiler = (argument, compiler) => {
  const [needle, haystack] = compileOperands("$in", argument, compiler, exactly(2));
  return (frame) => {
    const value = needle(frame);
    const array = haystack(frame);
    if (!Array.isArray(array))
      throw expressionError(
        40081,
        `$in requires an array as a second argument, found: ${expressionTypeName(array)}`,
      );
    return array.some((item) => compareExpressionValues(value, item) === 0);
  };
};

const $anyElementTrue: OperatorCompiler = (argument, compiler) => {
  const [operand] = compileOperands("$anyElementTrue", argument, compiler, exactly(1));
  return (frame) => {
    const array = operand(frame);
    if (!Array.isArray(array))
      throw expressionError(
        17041,
        `$anyElementTrue's argument must be an array, but is ${expressionTypeName(array)}`,
      );
    return array.some(isExpressionTrue);
  };
};

const $objectToArray: OperatorCompiler = (argument, compiler) => {
  const [operand] = compileOperands("$objectToArray", argument, compiler, exactly(1));
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
  if (!Array.isArray(value))
    throw expressionError(code, `input to ${operator} must be an array not ${expressionTypeName(value)}`);
  return value;
}

const $map: OperatorCompiler = (argument, compiler) => {
  const { input, slot, body } = compileIteration("$map", argument, compiler, "in");
  return (frame) => {
    const array = iterationInput("$map", 16883, input(frame));
    if (array === null) return null;
    return array.map((item) => {
      frame[slot] = item;
      const value = body(frame);
      return value === undefined ? null : value;
    });
  };
};

const $filter: OperatorCompiler = (argument, compiler) => {
  const { input, slot, body } = compileIteration("$filter", argument, compiler, "cond");
  return (frame) => {
    const array = iterationInput("$filter", 28651, input(frame));
    if (array === null) return null;
    return array.filter((item) => {
      frame[slot] = item;
      return isExpressionTrue(body(frame));
    });
  };
};

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
  $concatArrays,
  $in,
  $anyElementTrue,
  $objectToArray,
  $map,
  $filter,
  $max: extreme("$max", 1),
  $min: extreme("$min", -1),
};
