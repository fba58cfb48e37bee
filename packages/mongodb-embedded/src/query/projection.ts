// find's projection: inclusion or exclusion of (dotted) fields, `$slice` and `$elemMatch`.
// Inclusion keeps the document's own field order and `_id` unless excluded; a dotted path
// through an array projects every embedded document of it. Projections with aggregation
// expressions go to the aggregation engine's $project.
import type { Document } from "bson";
import { isNumeric, isPlainDocument, toNumber } from "./bson-types.js";
import { deepCopy } from "./document-copy.js";
import { parseProjection, projectFields } from "./field-projection.js";
import type { StringComparator } from "./bson-order.js";
import { runPipeline } from "./pipeline.js";
import { queryError } from "./query-error.js";

/** Projects `doc`; `strings` is the command's collation, for `$elemMatch` and expressions,
 * which also see the command's `let` variables. */
export function projectDocument(
  doc: Document,
  projection: Document,
  strings?: StringComparator,
  variables?: Document,
): Document {
  const parsed = parseProjection(projection, strings);
  if (parsed.usesExpressions) {
    const context = { collection: () => [], strings, variables };
    const [projected] = runPipeline([doc], [{ $project: projection }], context);
    if (projected === undefined) throw new Error("$project of one document returned none");
    return projected;
  }
  const result = projectFields(doc, parsed);
  for (const [path, spec] of parsed.slices) sliceAtPath(result, path.split("."), spec);
  for (const [field, matches] of parsed.elemMatches) {
    const array = doc[field];
    const first = Array.isArray(array) ? array.find(matches) : undefined;
    if (first === undefined) delete result[field];
    else result[field] = [deepCopy(first)];
  }
  return result;
}

function sliceAtPath(container: unknown, parts: string[], spec: unknown): void {
  if (Array.isArray(container)) {
    container.forEach((element) => sliceAtPath(element, parts, spec));
    return;
  }
  if (!isPlainDocument(container)) return;
  const [head, ...rest] = parts;
  if (head === undefined) return;
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
