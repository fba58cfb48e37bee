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

/** Hands back the options mingo evaluates with; see compileExprPredicate. */
const CAPTURE_OPTIONS = "$__captureComputeOptions";
let captured: Options | undefined;

const EXPRESSION_CONTEXT = Context.init({
  accumulator: accumulatorOperators,
  expression: {
    ...expressionOperators,
    [CAPTURE_OPTIONS]: (_doc: unknown, _expr: unknown, options: Options) => {
      captured = options;
      return null;
    },
  },
});

/**
 * mingo's options for evaluating many documents. Handed plain options, evalExpr rebuilds them
 * on every call, copying every operator table (most of a $match's cost over change events);
 * handed its own options object with a root, it uses them as they are.
 */
function reusableOptions(
  options: Partial<Options>,
): Options & { update(locals: { root: unknown }): unknown } {
  captured = undefined;
  evalExpr({}, { [CAPTURE_OPTIONS]: 1 }, options as Options);
  const reusable = captured as (Options & { update(locals: { root: unknown }): unknown }) | undefined;
  if (!reusable) throw new Error("mingo did not pass its options to an expression operator");
  return reusable;
}

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
  const reusable = reusableOptions(options);
  // Evaluation only reads the document, so the numeric view may share its unconverted parts.
  return (doc) => {
    const root = toSharedMingoValue(doc);
    reusable.update({ root });
    return isExpressionTrue(withMingoErrors(() => evalExpr(root, expr, reusable)));
  };
}

/** Evaluates an expression that reads no document (a `let` value), once. */
export function evaluateConstantExpression(expression: unknown, variables: Document): unknown {
  const options = {
    context: EXPRESSION_CONTEXT,
    variables: toMingoValue(variables),
  } as Partial<Options>;
  return withMingoErrors(() => evalExpr({}, toMingoValue(expression), options as Options));
}
