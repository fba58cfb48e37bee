// Projections parsed (find's: fields, `$slice`, `$elemMatch`; anything else is an aggregation
// expression), and the part find and $project share, by field names alone: inclusion keeps
// the document's own field order and `_id` unless excluded; a dotted path through an array
// projects every embedded document of it (other elements are dropped); exclusion removes the
// paths and keeps the rest. Values keep their BSON types.
import type { Document } from "bson";
import { isNumeric, isPlainDocument, toNumber } from "./bson-types.js";
import { deepCopy } from "./document-copy.js";
import { copyFieldOrder } from "@pattern-sidecar/bson-field-order";
import { withIdAhead } from "./field-order.js";
import type { StringComparator } from "./bson-order.js";
import { parentsAndLeaf } from "./filter-path.js";
import { compileFilter } from "./filter.js";
import { queryError } from "./query-error.js";

type FieldTree = { [field: string]: FieldTree | true };

/** An inclusion projection excludes nothing but `_id` (mongod's error 31254 otherwise). */
function assertNoExclusion(excluded: FieldTree): void {
  const [field] = Object.keys(excluded);
  if (field !== undefined)
    throw queryError("Location31254", `Cannot do exclusion on field ${field} in inclusion projection`);
}

export interface ParsedProjection {
  readonly mode: "inclusion" | "exclusion";
  readonly fields: FieldTree;
  readonly excludeId: boolean;
  readonly slices: [string, unknown][];
  readonly elemMatches: [string, (element: unknown) => boolean][];
  readonly usesExpressions: boolean;
}

/** The fields (and `_id`) a parsed projection keeps, applied to `doc`; `$slice`, `$elemMatch` and expressions aside. */
export function projectFields(doc: Document, parsed: ParsedProjection): Document {
  if (parsed.mode === "exclusion") {
    const result = exclude(doc, parsed.fields);
    if (parsed.excludeId) delete result._id;
    return result;
  }
  const result = include(doc, parsed.fields);
  return !parsed.excludeId && doc._id !== undefined ? withIdAhead(doc._id, result) : result;
}

/**
 * A projection whose every value is a boolean or a number, parsed once; undefined for any
 * other (expressions, `$slice`, `$elemMatch`), which the caller evaluates its own way.
 */
export function compileFieldProjection(projection: Document): ((doc: Document) => Document) | undefined {
  const specs = Object.values(projection);
  if (specs.length === 0 || !specs.every((spec) => typeof spec === "boolean" || isNumeric(spec)))
    return undefined;
  const parsed = parseProjection(projection, undefined);
  return (doc) => projectFields(doc, parsed);
}

export function parseProjection(
  projection: Document,
  strings: StringComparator | undefined,
): ParsedProjection {
  const included: FieldTree = {};
  const excluded: FieldTree = {};
  const slices: [string, unknown][] = [];
  const elemMatches: [string, (element: unknown) => boolean][] = [];
  let excludeId = false;
  let usesExpressions = false;
  for (const [path, spec] of Object.entries(projection)) {
    if (path.endsWith(".$"))
      throw queryError("NotImplemented", `positional projection '${path}' is not supported`);
    if (isPlainDocument(spec) && "$slice" in spec) slices.push([path, spec.$slice]);
    else if (isPlainDocument(spec) && "$elemMatch" in spec)
      elemMatches.push([path, elementMatcher(spec.$elemMatch, strings)]);
    else if (typeof spec === "boolean" || isNumeric(spec)) {
      const on = typeof spec === "boolean" ? spec : toNumber(spec) !== 0;
      if (path === "_id") excludeId = !on;
      else addPath(on ? included : excluded, path);
    } else usesExpressions = true;
  }
  const hasInclusions = Object.keys(included).length > 0 || elemMatches.length > 0;
  if (hasInclusions) assertNoExclusion(excluded);
  const mode =
    hasInclusions || (excludeId === false && "_id" in projection && slices.length === 0)
      ? "inclusion"
      : "exclusion";
  for (const [path] of slices) if (mode === "inclusion") addPath(included, path);
  return {
    mode,
    fields: mode === "inclusion" ? included : excluded,
    excludeId,
    slices,
    elemMatches,
    usesExpressions,
  };
}

function elementMatcher(
  filter: unknown,
  strings: StringComparator | undefined,
): (element: unknown) => boolean {
  if (!isPlainDocument(filter)) throw queryError("BadValue", "elemMatch: Invalid argument, object required.");
  const matches = compileFilter(filter, { strings });
  return (element) => isPlainDocument(element) && matches(element);
}

function addPath(tree: FieldTree, path: string): void {
  const { parents, leaf } = parentsAndLeaf(path);
  let node = tree;
  for (const part of parents) {
    const child = node[part];
    if (child === true) return;
    node = node[part] = child ?? {};
  }
  node[leaf] = true;
}

function include(doc: Document, tree: FieldTree): Document {
  const result: Document = {};
  for (const key of Object.keys(doc)) {
    const node = tree[key];
    if (node === undefined) continue;
    if (node === true) result[key] = deepCopy(doc[key]);
    else {
      const projected = includeNested(doc[key], node);
      if (projected !== undefined) result[key] = projected;
    }
  }
  copyFieldOrder(doc, result);
  return result;
}

function includeNested(value: unknown, tree: FieldTree): unknown {
  if (isPlainDocument(value)) return include(value, tree);
  if (Array.isArray(value)) {
    return value.filter((e) => isPlainDocument(e) || Array.isArray(e)).map((e) => includeNested(e, tree));
  }
  return undefined;
}

function exclude(doc: Document, tree: FieldTree): Document {
  const result: Document = {};
  for (const key of Object.keys(doc)) {
    const node = tree[key];
    if (node === true) continue;
    result[key] = node === undefined ? deepCopy(doc[key]) : excludeNested(doc[key], node);
  }
  copyFieldOrder(doc, result);
  return result;
}

function excludeNested(value: unknown, tree: FieldTree): unknown {
  if (isPlainDocument(value)) return exclude(value, tree);
  if (Array.isArray(value)) return value.map((e) => excludeNested(e, tree));
  return deepCopy(value);
}
