// Query filters compiled once into a predicate: `compileFilter(filter)(doc)`. Top-level
// logical operators and `$expr` are handled here; field operators in filter-operators.ts.
import type { Document } from "bson";
import { isPlainDocument } from "./bson-types.js";
import { anyValueAtPath, splitPath } from "./filter-path.js";
import { compileOperator, equalityTest, expandLeaf, type CompiledOperator } from "./filter-operators.js";
import { compileExprPredicate } from "./expression.js";
import { queryError } from "./query-error.js";

export type DocumentPredicate = (doc: Document) => boolean;

const NOT_IMPLEMENTED_TOP_LEVEL = new Set(["$where", "$text", "$jsonSchema", "$near", "$geoWithin"]);

/** Compiles a filter once, for matching many documents (throws BadValue on an invalid filter). */
export function compileFilter(filter: Document, variables?: Document): DocumentPredicate {
  if (!isPlainDocument(filter)) throw queryError("BadValue", "query filter must be an object");
  const clauses = Object.entries(filter).map(([key, value]) => compileClause(key, value, variables));
  if (clauses.length === 1) return clauses[0];
  return (doc) => clauses.every((clause) => clause(doc));
}

export function matchesFilter(doc: Document, filter: Document, variables?: Document): boolean {
  return compileFilter(filter, variables)(doc);
}

function compileClause(key: string, value: unknown, variables?: Document): DocumentPredicate {
  if (!key.startsWith("$")) return compileFieldClause(key, value, variables);
  switch (key) {
    case "$and":
      return compileLogical(key, value, variables, (parts) => (doc) => parts.every((p) => p(doc)));
    case "$or":
      return compileLogical(key, value, variables, (parts) => (doc) => parts.some((p) => p(doc)));
    case "$nor":
      return compileLogical(key, value, variables, (parts) => (doc) => !parts.some((p) => p(doc)));
    case "$expr":
      return compileExprPredicate(value, variables);
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
  variables: Document | undefined,
  combine: (parts: DocumentPredicate[]) => DocumentPredicate,
): DocumentPredicate {
  if (!Array.isArray(value) || value.length === 0) {
    throw queryError("BadValue", `${operator} must be a nonempty array`);
  }
  const parts = value.map((item) => {
    if (!isPlainDocument(item))
      throw queryError("BadValue", `${operator} argument's entries must be objects`);
    return compileFilter(item, variables);
  });
  return combine(parts);
}

function isOperatorDocument(value: unknown): value is Document {
  if (!isPlainDocument(value)) return false;
  const first = Object.keys(value)[0];
  // DBRef-shaped literals ({ $ref, $id }) are values, not operators.
  return first !== undefined && first.startsWith("$") && first !== "$ref" && first !== "$id";
}

function compileFieldClause(path: string, condition: unknown, variables?: Document): DocumentPredicate {
  const parts = splitPath(path);
  if (!isOperatorDocument(condition)) {
    const test = equalityTest(condition === undefined ? null : condition);
    return (doc) =>
      anyValueAtPath(doc, parts, (value) => test(value) || (Array.isArray(value) && value.some(test)));
  }
  const subFilter = (filter: Document) => compileFilter(filter, variables);
  const predicates = Object.entries(condition)
    .filter(([name]) => name !== "$options" || !("$regex" in condition))
    .map(([name, argument]) => pathPredicate(parts, compileOperator(name, argument, condition, subFilter)));
  if (predicates.length === 1) return predicates[0];
  return (doc) => predicates.every((predicate) => predicate(doc));
}

/** Negated operators hold when no value the path reaches passes the positive test. */
function pathPredicate(parts: string[], op: CompiledOperator): DocumentPredicate {
  const positive = expandLeaf({ ...op, negated: false });
  if (op.negated) return (doc) => !anyValueAtPath(doc, parts, positive);
  return (doc) => anyValueAtPath(doc, parts, positive);
}
