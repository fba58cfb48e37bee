// `$match` pieces that judge an update event from its updateDescription alone, without the
// post-image (`fullDocument: "updateLookup"` costs the server one read per event). mongod
// reports a `$push` that only appends as one updatedFields entry per new element,
// "<array>.<index>", and an array it rewrote (`$set`, `$pull`, `$push` with `$position`,
// `$sort` or `$slice`, a pipeline update; MongoDB 7 in some other cases too) as the whole
// array under "<array>"; both forms are read here.
import type { Document } from "mongodb";
import { arraySize, presentButNotArray } from "./event-filters.js";

const UPDATED = { $objectToArray: { $ifNull: ["$updateDescription.updatedFields", {}] } };

/** An update event; the sweep's documents dressed as events have no updateDescription. */
export const IS_UPDATE = { operationType: "update", updateDescription: { $exists: true } };

/** Inserts and replaces: they carry the whole document in fullDocument. */
export const IS_INSERT_OR_REPLACE = { operationType: { $in: ["insert", "replace"] } };

/** The value the update set `field` to, whole; missing when it did not. */
export function wholeValueSet(field: string): Document {
  const entry = { $first: { $filter: { input: UPDATED, cond: { $eq: ["$$this.k", field] } } } };
  return { $getField: { field: "v", input: entry } };
}

/** The highest array index of `field` the update set ("field.7", "field.7.x"), or -1. */
export function highestIndexSet(field: string): Document {
  const parts = { $split: ["$$this.k", "."] };
  const index = {
    $cond: [
      { $eq: [{ $arrayElemAt: [parts, 0] }, field] },
      { $convert: { input: { $arrayElemAt: [parts, 1] }, to: "long", onError: -1, onNull: -1 } },
      -1,
    ],
  };
  return { $max: [-1, { $max: { $map: { input: UPDATED, in: index } } }] };
}

/** Whether the update left the array `field` longer than `limit`, as far as it tells. */
export function arraySetLongerThan(field: string, limit: number): Document {
  return {
    $or: [{ $gte: [highestIndexSet(field), limit] }, { $gt: [arraySize(wholeValueSet(field)), limit] }],
  };
}

/** Whether the update set `field` to something that is not an array. */
export function setToNonArray(field: string): Document {
  return presentButNotArray(wholeValueSet(field));
}

/** Top-level fields an update named in updatedFields, removedFields or truncatedArrays. */
export function topLevelFieldsTouched(): Document {
  const description = "$updateDescription";
  const updated = { $map: { input: UPDATED, in: "$$this.k" } };
  const removed = { $ifNull: [`${description}.removedFields`, []] };
  const truncated = {
    $map: { input: { $ifNull: [`${description}.truncatedArrays`, []] }, in: "$$this.field" },
  };
  return {
    $map: {
      input: { $concatArrays: [updated, removed, truncated] },
      in: { $arrayElemAt: [{ $split: ["$$this", "."] }, 0] },
    },
  };
}
