// Applying an update document to a copy of a document, as mongod's update subsystem does:
// validation first (unknown operators, conflicting paths, unused array filters), then each
// field in path order, then the _id immutability check.
import type { Document } from "bson";
import { valuesEqual, type StringComparator } from "./bson-order.js";
import { bsonTypeOf, isPlainDocument } from "./bson-types.js";
import { deepCopy, shallowCopy } from "./document-copy.js";
import { fieldNames } from "@pattern-sidecar/bson-field-order";
import { withIdAhead } from "./field-order.js";
import { compileArrayFilters, identifiersInPath } from "./array-filters.js";
import { positionalIndex } from "./positional.js";
import { applyPipelineUpdate } from "./pipeline-update.js";
import { queryError } from "./query-error.js";
import { ARRAY_OPERATORS } from "./update-array-operators.js";
import { assertNoConflictingPaths, compareUpdatePaths } from "./update-conflicts.js";
import { FIELD_OPERATORS, type FieldOperator } from "./update-field-operators.js";
import { applyRename } from "./update-rename.js";
import { resolveTargets, type PathResolution } from "./update-path.js";

export interface UpdateOptions {
  /** The document is a fresh upsert seed: $setOnInsert applies. */
  isInsert: boolean;
  arrayFilters?: Document[];
  /** The query that selected the document; needed only to resolve the positional `$`. */
  filter?: Document;
  /** The statement's collation: array filters, `$`, $pull, $addToSet, $min/$max use it. */
  strings?: StringComparator;
  /** The command's `let` variables, for pipeline updates. */
  variables?: Document;
}

const OPERATORS: Record<string, FieldOperator> = { ...FIELD_OPERATORS, ...ARRAY_OPERATORS };
const KNOWN_OPERATORS = new Set([...Object.keys(OPERATORS), "$rename"]);

interface FieldUpdate {
  readonly operator: string;
  readonly path: string;
  readonly argument: unknown;
}

/** True when `update` replaces the document (no $-operators) rather than modifying it. */
export function isReplacement(update: Document | Document[]): boolean {
  if (Array.isArray(update)) return false;
  return Object.keys(update).every((key) => !key.startsWith("$"));
}

export function applyUpdate(doc: Document, update: Document | Document[], options: UpdateOptions): Document {
  return applyLoggedUpdate(doc, update, options).document;
}

export interface LoggedUpdate {
  document: Document;
  /**
   * The paths whose change the oplog entry records as their whole new value, as mongod's
   * update operators log them; a change elsewhere (a pipeline's, a $push's appended elements)
   * is its delta between the two versions.
   */
  wholeValuePaths: ReadonlySet<string>;
}

/** The updated document, and how mongod's oplog entry for the update would record it. */
export function applyLoggedUpdate(
  doc: Document,
  update: Document | Document[],
  options: UpdateOptions,
): LoggedUpdate {
  const wholeValuePaths = new Set<string>();
  const result = Array.isArray(update)
    ? applyPipelineUpdate(doc, update, options.variables)
    : isReplacement(update)
      ? applyReplacement(doc, update)
      : applyOperators(doc, update, options, wholeValuePaths);
  assertIdUnchanged(doc, result);
  return { document: idFirst(result), wholeValuePaths };
}

function applyReplacement(doc: Document, replacement: Document): Document {
  const copy = deepCopy(replacement);
  if (doc._id === undefined || "_id" in copy) return copy;
  return withIdAhead(doc._id, copy);
}

function unknownModifier(operator: string): Error {
  return queryError(
    "FailedToParse",
    `Unknown modifier: ${operator}. Expected a valid update modifier or pipeline-style update specified as an array`,
  );
}

function parseFieldUpdates(update: Document): FieldUpdate[] {
  return Object.entries(update).flatMap(([operator, fields]) => {
    if (!KNOWN_OPERATORS.has(operator)) throw unknownModifier(operator);
    if (!isPlainDocument(fields)) {
      throw queryError(
        "FailedToParse",
        `Modifiers operate on fields but we found type ${bsonTypeOf(fields)} instead. For example: {$mod: {<field>: ...}} not {${operator}: ${String(fields)}}`,
      );
    }
    return Object.entries(fields).map(([path, argument]) => {
      if (path === "" || path.split(".").includes("")) {
        throw queryError("BadValue", `An empty update path is not valid (${operator})`);
      }
      return { operator, path, argument };
    });
  });
}

function targetPaths(updates: FieldUpdate[]): string[] {
  return updates.flatMap(({ operator, path, argument }) =>
    operator === "$rename" && typeof argument === "string" ? [path, argument] : [path],
  );
}

function applyOperators(
  doc: Document,
  update: Document,
  options: UpdateOptions,
  wholeValuePaths: Set<string>,
): Document {
  const updates = parseFieldUpdates(update).sort((a, b) => compareUpdatePaths(a.path, b.path));
  assertNoConflictingPaths(targetPaths(updates));
  const arrayFilters = compileArrayFilters(options.arrayFilters, options.strings);
  assertArrayFiltersUsed(arrayFilters, updates);
  // Copied on write (update-path.ts): what the update leaves alone stays shared with `doc`.
  const result = shallowCopy(doc);
  const owned = new Set<object>([result]);
  for (const fieldUpdate of updates) {
    if (fieldUpdate.operator === "$setOnInsert" && !options.isInsert) continue;
    const resolution = resolutionFor(doc, fieldUpdate, arrayFilters, owned, options);
    if (fieldUpdate.operator === "$rename") {
      const destination = applyRename(result, fieldUpdate.path, fieldUpdate.argument, owned);
      if (destination !== undefined) wholeValuePaths.add(destination);
      continue;
    }
    const apply = OPERATORS[fieldUpdate.operator];
    if (apply === undefined) throw unknownModifier(fieldUpdate.operator);
    for (const target of resolveTargets(result, fieldUpdate.path, resolution)) {
      const loggedAs = apply(target, fieldUpdate.argument, options.strings) ?? "wholeValue";
      if (loggedAs === "wholeValue") wholeValuePaths.add(target.path);
    }
  }
  return result;
}

const REMOVING_OPERATORS = new Set(["$unset", "$pop", "$pull", "$pullAll"]);

function resolutionFor(
  doc: Document,
  fieldUpdate: FieldUpdate,
  arrayFilters: PathResolution["arrayFilters"],
  owned: Set<object>,
  options: UpdateOptions,
): PathResolution {
  const usesPositional = fieldUpdate.path.split(".").includes("$");
  return {
    arrayFilters,
    create: !REMOVING_OPERATORS.has(fieldUpdate.operator),
    owned,
    positionalIndex: usesPositional
      ? positionalIndex(doc, fieldUpdate.path, options.filter, options.strings)
      : undefined,
  };
}

function assertArrayFiltersUsed(arrayFilters: Map<string, unknown>, updates: FieldUpdate[]): void {
  // Most updates have none: their paths need no walk for identifiers.
  if (arrayFilters.size === 0) return;
  const used = new Set(updates.flatMap((u) => identifiersInPath(u.path)));
  for (const identifier of arrayFilters.keys()) {
    if (!used.has(identifier)) {
      throw queryError(
        "FailedToParse",
        `The array filter for identifier '${identifier}' was not used in the update`,
      );
    }
  }
}

function assertIdUnchanged(before: Document, after: Document): void {
  if (before._id === undefined) return;
  if (
    after._id !== undefined &&
    valuesEqual(before._id, after._id) &&
    bsonTypeOf(before._id) === bsonTypeOf(after._id)
  ) {
    return;
  }
  throw queryError(
    "ImmutableField",
    "Performing an update on the path '_id' would modify the immutable field '_id'",
  );
}

/** mongod always stores _id as the first field. */
function idFirst(doc: Document): Document {
  if (doc._id === undefined || fieldNames(doc)[0] === "_id") return doc;
  return withIdAhead(doc._id, doc);
}
