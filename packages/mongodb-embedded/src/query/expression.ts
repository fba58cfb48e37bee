// Aggregation expressions (`$expr` in filters): natively where native-expression.ts knows
// every operator used (change-stream filters run one over every event, and mingo spends most
// of a $match's time there), by mingo otherwise, over a numeric view of the document
// (see mingo-view.ts).
import type { Document } from "bson";
import { Context, evalExpr } from "mingo/core";
import * as accumulatorOperators from "mingo/operators/accumulator";
import * as expressionOperators from "mingo/operators/expression";
import type { Options } from "mingo/types";
import { isExpressionTrue } from "./expression-values.js";
import { withMingoErrors } from "./mingo-errors.js";
import { toMingoValue, toSharedMingoValue } from "./mingo-view.js";
import { compileNativeExpression } from "./native-expression.js";
import { NativeUnsupported } from "./native-expression-types.js";
import { $bsonSize } from "./mingo-bson-size.js";
import { $toHashedIndexKey } from "./hashed-index-key.js";

/** Hands back the options mingo evaluates with; see compileExprPredicate. */
const CAPTURE_OPTIONS = "$__captureComputeOptions";
let captured: Options | undefined;

const EXPRESSION_CONTEXT = Context.init({
  accumulator: accumulatorOperators,
  expression: {
    ...expressionOperators,
    $bsonSize,
    $toHashedIndexKey,
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

type DocumentTest = (doc: Document) => boolean;

type DocumentValue = (doc: Document) => unknown;

/** The `$expr` of a filter: whether compileExpression's value is true. */
export function compileExprPredicate(expression: unknown, variables?: Document): DocumentTest {
  const value = compileExpression(expression, variables);
  return (doc) => isExpressionTrue(value(doc));
}

/**
 * The native evaluator when it covers the expression; mingo for the whole expression when it
 * does not, or for one document the native evaluator declines (a date or decimal in $add),
 * whose value then holds JS numbers where the document held Int32, Long or Double.
 */
export function compileExpression(expression: unknown, variables?: Document): DocumentValue {
  let mingo: DocumentValue | undefined;
  const viaMingo: DocumentValue = (doc) => (mingo ??= compileMingoExpression(expression, variables))(doc);
  const native = compileNativeExpression(expression, variables ?? {});
  if (native === undefined) return viaMingo;
  return (doc) => {
    try {
      return native(doc);
    } catch (error) {
      if (error instanceof NativeUnsupported) return viaMingo(doc);
      throw error;
    }
  };
}

/** mingo's evaluation of a `$expr`, compiled once (compileMingoExpression). */
export function compileMingoPredicate(expression: unknown, variables?: Document): DocumentTest {
  const value = compileMingoExpression(expression, variables);
  return (doc) => isExpressionTrue(value(doc));
}

/** mingo's evaluation, compiled once: the numeric view of each document, reusable options. */
function compileMingoExpression(expression: unknown, variables?: Document): DocumentValue {
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
    return withMingoErrors(() => evalExpr(root, expr, reusable));
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
