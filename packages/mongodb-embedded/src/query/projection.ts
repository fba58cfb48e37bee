// find's projection: inclusion or exclusion of (dotted) fields, `$slice` and `$elemMatch`.
// Inclusion keeps the document's own field order and `_id` unless excluded; a dotted path
// through an array projects every embedded document of it. Projections with aggregation
// expressions go to the aggregation engine's $project.
import type { Document } from "bson";
import { isNumeric, isPlainDocument, toNumber } from "./bson-types.js";
import { deepCopy } from "./document-copy.js";
import { addPath, assertNoExclusion, exclude, include, type FieldTree } from "./field-projection.js";
import type { StringComparator } from "./bson-order.js";
import { compileFilter } from "./filter.js";
import { runPipeline } from "./pipeline.js";
import { queryError } from "./query-error.js";

interface ParsedProjection {
  readonly mode: "inclusion" | "exclusion";
  readonly fields: FieldTree;
  readonly excludeId: boolean;
  readonly slices: [string, unknown][];
  readonly elemMatches: [string, (element: unknown) => boolean][];
  readonly usesExpressions: boolean;
}

/** Projects `doc`; `strings` is the command's collation, for `$elemMatch` and expressions,
 * which also see the command's `let` variables. */
export function projectDocument(
  doc: Document,
  projection: Document,
  strings?: StringComparator,
  variables?: Document,
): Document {
  const parsed = parseProjection(projection, strings);
  if (parsed.usesExpressions)
    return runPipeline([doc], [{ $project: projection }], { collection: () => [], strings, variables })[0];
  let result = parsed.mode === "inclusion" ? include(doc, parsed.fields) : exclude(doc, parsed.fields);
  if (parsed.mode === "inclusion" && !parsed.excludeId && doc._id !== undefined)
    result = { _id: doc._id, ...result };
  if (parsed.mode === "exclusion" && parsed.excludeId) delete result._id;
  for (const [path, spec] of parsed.slices) sliceAtPath(result, path.split("."), spec);
  for (const [field, matches] of parsed.elemMatches) {
    const array = doc[field];
    const first = Array.isArray(array) ? array.find(matches) : undefined;
    if (first === undefined) delete result[field];
    else result[field] = [deepCopy(first)];
  }
  return result;
}

function parseProjection(projection: Document, strings: StringComparator | undefined): ParsedProjection {
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

function sliceAtPath(container: unknown, parts: string[], spec: unknown): void {
  if (Array.isArray(container)) {
    container.forEach((element) => sliceAtPath(element, parts, spec));
    return;
  }
  if (!isPlainDocument(container)) return;
  const [head, ...rest] = parts;
  if (rest.length > 0) return sliceAtPath(container[head], rest, spec);
  const array = container[head];
  if (Array.isArray(array)) container[head] = sliceArray(array, spec);
}

/** `$slice: n` keeps the first n (last -n); `$slice: [skip, limit]` skips then limits. */
function sliceArray(array: unknown[], spec: unknown): unknown[] {
  if (Array.isArray(spec) && spec.length === 2) {
    const skip = toNumber(spec[0]);
    const limit = toNumber(spec[1]);
    if (limit <= 0) throw queryError("BadValue", "$slice limit must be positive");
    const start = skip < 0 ? Math.max(0, array.length + skip) : skip;
    return array.slice(start, start + limit);
  }
  if (!isNumeric(spec)) throw queryError("BadValue", "$slice only supports numbers and [skip, limit] arrays");
  const n = toNumber(spec);
  return n >= 0 ? array.slice(0, n) : array.slice(Math.max(0, array.length + n));
}
