// Comparison, boolean, conditional and type operators of aggregation expressions.
import {
  compareExpressionValues,
  expressionTypeName,
  isExpressionTrue,
  isNullish,
} from "./expression-values.js";
import { isPlainDocument } from "./bson-types.js";
import {
  NativeUnsupported,
  type Evaluator,
  type ExpressionCompiler,
  type OperatorCompiler,
} from "./native-expression-types.js";
import { atLeast, compileOperands, compileExactly, namedArguments } from "./native-operands.js";

function comparison(operator: string, holds: (order: number) => boolean): OperatorCompiler {
  return (argument, compiler) => {
    const [left, right] = compileExactly(operator, argument, compiler, 2);
    return (frame) => holds(compareExpressionValues(left(frame), right(frame)));
  };
}

const $and: OperatorCompiler = (argument, compiler) => {
  const parts = compileOperands("$and", argument, compiler);
  return (frame) => parts.every((part) => isExpressionTrue(part(frame)));
};

const $or: OperatorCompiler = (argument, compiler) => {
  const parts = compileOperands("$or", argument, compiler);
  return (frame) => parts.some((part) => isExpressionTrue(part(frame)));
};

const $not: OperatorCompiler = (argument, compiler) => {
  const [operand] = compileExactly("$not", argument, compiler, 1);
  return (frame) => !isExpressionTrue(operand(frame));
};

/** `[if, then, else]` or `{if, then, else}`. */
const $cond: OperatorCompiler = (argument, compiler) => {
  const [test, then, otherwise] = Array.isArray(argument)
    ? compileExactly("$cond", argument, compiler, 3)
    : condBranches(argument, (expression) => compiler.compile(expression));
  return (frame) => (isExpressionTrue(test(frame)) ? then(frame) : otherwise(frame));
};

function condBranches(
  argument: unknown,
  compile: (expression: unknown) => Evaluator,
): [Evaluator, Evaluator, Evaluator] {
  const named = namedArguments("$cond", argument, ["if", "then", "else"]);
  return [compile(named.if), compile(named.then), compile(named.else)];
}

/**
 * `{vars: {name: expression, ...}, in: expression}`: each variable evaluated once, in the
 * outer scope, then `in` with them bound (mongod's ExpressionLet).
 */
const $let: OperatorCompiler = (argument, compiler) => {
  const named = namedArguments("$let", argument, ["vars", "in"]);
  if (!isPlainDocument(named.vars)) throw new NativeUnsupported("$let whose vars is not a document");
  const bindings: { slot: number; value: Evaluator }[] = [];
  let inner: ExpressionCompiler = compiler;
  for (const [name, expression] of Object.entries(named.vars)) {
    const value = compiler.compile(expression);
    const bound = inner.withVariable(name);
    bindings.push({ slot: bound.slot, value });
    inner = bound.compiler;
  }
  const body = inner.compile(named.in);
  return (frame) => {
    for (const { slot, value } of bindings) frame[slot] = value(frame);
    return body(frame);
  };
};

/** The first operand that is neither null nor missing, else the last one's value as it is. */
const $ifNull: OperatorCompiler = (argument, compiler) => {
  const parts = compileOperands("$ifNull", argument, compiler, atLeast(2));
  return (frame) => {
    let value: unknown;
    for (const part of parts) {
      value = part(frame);
      if (!isNullish(value)) return value;
    }
    return value;
  };
};

const $isArray: OperatorCompiler = (argument, compiler) => {
  const [operand] = compileExactly("$isArray", argument, compiler, 1);
  return (frame) => Array.isArray(operand(frame));
};

/** The BSON type's name, "missing" for a missing value. */
const $type: OperatorCompiler = (argument, compiler) => {
  const [operand] = compileExactly("$type", argument, compiler, 1);
  return (frame) => expressionTypeName(operand(frame));
};

export const NATIVE_LOGIC_OPERATORS: Readonly<Record<string, OperatorCompiler>> = {
  $eq: comparison("$eq", (order) => order === 0),
  $ne: comparison("$ne", (order) => order !== 0),
  $gt: comparison("$gt", (order) => order > 0),
  $gte: comparison("$gte", (order) => order >= 0),
  $lt: comparison("$lt", (order) => order < 0),
  $lte: comparison("$lte", (order) => order <= 0),
  $and,
  $or,
  $not,
  $cond,
  $let,
  $ifNull,
  $isArray,
  $type,
};
