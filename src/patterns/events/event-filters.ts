// Pieces of the `$match` conditions the drivers hand to the change stream (and that sweeps
// run over documents dressed as events). `$size` of a non-array fails the whole aggregation
// on the server, so every size is taken behind `$isArray`.
import type { Document } from "mongodb";

const WRITES = { $in: ["insert", "update", "replace"] };

/** Inserts, updates and replaces of documents in `collection`. */
export function writesTo(collection: string): Document {
  return { "ns.coll": collection, operationType: WRITES };
}

/** Deletes of documents in `collection` (their events carry only the `_id`, and a pre-image where enabled). */
export function deletesFrom(collection: string): Document {
  return { "ns.coll": collection, operationType: "delete" };
}

/** Writes to `collection` that also meet `condition`. */
export function writesMatching(collection: string, condition: Document): Document {
  return { $and: [writesTo(collection), condition] };
}

/** Path of a field of the event's post-image. */
export function fullDocumentPath(field: string): string {
  return `$fullDocument.${field}`;
}

/** Size of the array at `path` (or an expression's value), or -1 when it is not an array (so `$gt` comparisons stay false). */
export function arraySize(path: string | Document): Document {
  return { $cond: [{ $isArray: path }, { $size: path }, -1] };
}

/** True for a value that is present but not an array: a bad document to report. */
export function presentButNotArray(path: string | Document): Document {
  return { $and: [{ $ne: [{ $type: path }, "missing"] }, { $not: [{ $isArray: path }] }] };
}
