// $bsonSize, natively and for the stages mingo runs ($project, $addFields ...), which does not
// know it. mingo's documents are numeric views (mingo-view.ts): an int64 counts as its number.
import { calculateObjectSize } from "bson";
import { evalExpr } from "mingo/core";
import type { Options } from "mingo/types";
import { isPlainDocument } from "./bson-types.js";
import { expressionError, expressionTypeName, isNullish } from "./expression-values.js";

/** mongod's ExpressionBsonSize (src/mongo/db/pipeline/expression.cpp): null for null or missing. */
export function bsonSizeOf(value: unknown): number | null {
  if (isNullish(value)) return null;
  if (!isPlainDocument(value))
    throw expressionError(31393, `$bsonSize requires a document input, found: ${expressionTypeName(value)}`);
  return calculateObjectSize(value);
}

/** The operator as mingo calls it. */
export function $bsonSize(obj: unknown, expr: unknown, options: Options): number | null {
  return bsonSizeOf(evalExpr(obj, expr, options));
}
