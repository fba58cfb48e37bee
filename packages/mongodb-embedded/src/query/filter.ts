// Query filters compiled once into a predicate: `compileFilter(filter)(doc)`. Top-level
// logical operators and `$expr` are handled here; field operators in filter-operators.ts.
import type { Document } from "bson";
import type { StringComparator } from "./bson-order.js";
import { isPlainDocument } from "./bson-types.js";
import { anyValueAtPath, splitPath } from "./filter-path.js";
import {
  compileOperator,
  equalityTest,
  expandLeaf,
  type CompiledOperator,
  type OperatorContext,
} from "./filter-operators.js";
import { compileExprPredicate } from "./expression.js";
import { queryError } from "./query-error.js";

export type DocumentPredicate = (doc: Document) => boolean;

export interface FilterOptions {
  /** `let` variables and `$$` values visible to `$expr`. */
  readonly variables?: Document;
  /** A non-simple collation's string order; undefined compares strings as binary. */
  readonly strings?: StringComparator;
}

const NOT_IMPLEMENTED_TOP_LEVEL = new Set(["$where", "$text", "$jsonSchema", "$near", "$geoWithin"]);

/** Compiles a filter once, for matching many documents (throws BadValue on an invalid filter). */
export function compileFilter(filter: Document, options: FilterOptions = {}): DocumentPredicate {
  if (!isPlainDocument(filter)) throw queryError("BadValue", "query filter must be an object");
  return allOf(Object.entries(filter).map(([key, value]) => compileClause(key, value, options)));
}

/** Holds when every one of `predicates` does: the only one itself, when there is one. */
function allOf(predicates: DocumentPredicate[]): DocumentPredicate {
  const [only, ...others] = predicates;
  if (only !== undefined && others.length === 0) return only;
  return (doc) => predicates.every((predicate) => predicate(doc));
}

export function matchesFilter(doc: Document, filter: Document, options?: FilterOptions): boolean {
  return compileFilter(filter, options)(doc);
}

function compileClause(key: string, value: unknown, options: FilterOptions): DocumentPredicate {
  if (!key.startsWith("$")) return compileFieldClause(key, value, options);
  switch (key) {
    case "$and":
      return compileLogical(key, value, options, (parts) => (doc) => parts.every((p) => p(doc)));
    case "$or":
      return compileLogical(key, value, options, (parts) => (doc) => parts.some((p) => p(doc)));
    case "$nor":
      return compileLogical(key, value, options, (parts) => (doc) => !parts.some((p) => p(doc)));
    case "$expr":
      // mingo's expression operators compare strings as binary; mongod would use the collation.
      if (options.strings)
        throw queryError("NotImplemented", "$expr with a non-simple collation is not supported");
      return compileExprPredicate(value, options.variables);
    case "$comment":
      return () => true;
    default:
      if (NOT_IMPLEMENTED_TOP_LEVEL.has(key)) throw queryError("NotImplemented", `${key} is not supported`);
      throw queryError("BadValue", `unknown top level operator: ${key}`);
  }
}

function compileLogical(
  operator: string,
  value: unknown,
  options: FilterOptions,
  combine: (parts: DocumentPredicate[]) => DocumentPredicate,
): DocumentPredicate {
  if (!Array.isArray(value) || value.length === 0) {
    throw queryError("BadValue", `${operator} must be a nonempty array`);
  }
  const parts = value.map((item) => {
    if (!isPlainDocument(item))
      throw queryError("BadValue", `${operator} argument's entries must be objects`);
    return compileFilter(item, options);
  });
  return combine(parts);
}

function isOperatorDocument(value: unknown): value is Document {
  if (!isPlainDocument(value)) return false;
  const first = Object.keys(value)[0];
  // DBRef-shaped literals ({ $ref, $id }) are values, not operators.
  return first !== undefined && first.startsWith("$") && first !== "$ref" && first !== "$id";
}

function compileFieldClause(path: string, condition: unknown, options: FilterOptions): DocumentPredicate {
  const parts = splitPath(path);
  if (!isOperatorDocument(condition)) {
    const test = equalityTest(condition === undefined ? null : condition, options.strings);
    const leaf = (value: unknown) => test(value) || (Array.isArray(value) && value.some(test));
    return (doc) => anyValueAtPath(doc, parts, leaf);
  }
  // A method, not an arrow property: run from source (tsx), an arrow held in a property costs
  // a defineProperty naming it each time it is made, and this one is made for every clause.
  const context: OperatorContext = {
    subFilter(filter: Document) {
      return compileFilter(filter, options);
    },
    strings: options.strings,
  };
  const predicates = Object.entries(condition)
    .filter(([name]) => name !== "$options" || !("$regex" in condition))
    .map(([name, argument]) => pathPredicate(parts, compileOperator(name, argument, condition, context)));
  return allOf(predicates);
}

/** Negated operators hold when no value the path reaches passes the positive test. */
function pathPredicate(parts: string[], op: CompiledOperator): DocumentPredicate {
  const positive = expandLeaf({ ...op, negated: false });
  if (op.negated) return (doc) => !anyValueAtPath(doc, parts, positive);
  return (doc) => anyValueAtPath(doc, parts, positive);
}
