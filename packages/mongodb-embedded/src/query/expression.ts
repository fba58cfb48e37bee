// Aggregation expressions (`$expr` in filters) are evaluated by mingo, over a numeric view of
// the document (see mingo-view.ts).
import type { Document } from "bson";
import { Context, evalExpr } from "mingo/core";
import * as accumulatorOperators from "mingo/operators/accumulator";
import * as expressionOperators from "mingo/operators/expression";
import type { Options } from "mingo/types";
import { isNumeric, toNumber } from "./bson-types.js";
import { withMingoErrors } from "./mingo-errors.js";
import { toMingoValue, toSharedMingoValue } from "./mingo-view.js";

const EXPRESSION_CONTEXT = Context.init({
  accumulator: accumulatorOperators,
  expression: expressionOperators,
});

/** Aggregation truthiness: false, null, missing and numeric zero are false; "" and [] are true. */
export function isExpressionTrue(value: unknown): boolean {
  if (value === false || value === null || value === undefined) return false;
  if (isNumeric(value)) return toNumber(value) !== 0;
  return true;
}

export function compileExprPredicate(expression: unknown, variables?: Document): (doc: Document) => boolean {
  const expr = toMingoValue(expression);
  const options = {
    context: EXPRESSION_CONTEXT,
    variables: toMingoValue(variables ?? {}),
  } as Partial<Options>;
  // Evaluation only reads the document, so the numeric view may share its unconverted parts.
  return (doc) =>
    isExpressionTrue(withMingoErrors(() => evalExpr(toSharedMingoValue(doc), expr, options as Options)));
}

/** Evaluates an expression that reads no document (a `let` value), once. */
export function evaluateConstantExpression(expression: unknown, variables: Document): unknown {
  const options = {
    context: EXPRESSION_CONTEXT,
    variables: toMingoValue(variables),
  } as Partial<Options>;
  return withMingoErrors(() => evalExpr({}, toMingoValue(expression), options as Options));
}
