// `$match` pieces that judge an update event from its updateDescription alone, without the
// post-image (`fullDocument: "updateLookup"` costs the server one read per event). mongod
// reports a `$push` that only appends as one updatedFields entry per new element,
// "<array>.<index>", and an array it rewrote (`$set`, `$pull`, `$push` with `$position`,
// `$sort` or `$slice`, a pipeline update; MongoDB 7 in some other cases too) as the whole
// array under "<array>"; both forms are read here.
import type { Document } from "mongodb";
import { arraySize } from "./event-filters.js";

const UPDATED = { $objectToArray: { $ifNull: ["$updateDescription.updatedFields", {}] } };

/** An update event; the sweep's documents dressed as events have no updateDescription. */
export const IS_UPDATE = { operationType: "update", updateDescription: { $exists: true } };

/** Inserts and replaces: they carry the whole document in fullDocument. */
export const IS_INSERT_OR_REPLACE = { operationType: { $in: ["insert", "replace"] } };

/**
 * Events that may break a rule: an insert or replace whose document meets
 * `documentCondition`, or an update whose updateDescription meets `updateExpression`.
 */
export function eventsBreaking(documentCondition: Document, updateExpression: Document): Document {
  return {
    $or: [
      { $and: [IS_INSERT_OR_REPLACE, documentCondition] },
      { $and: [IS_UPDATE, { $expr: updateExpression }] },
    ],
  };
}

/** The value the update set `field` to, whole; missing when it did not. */
export function wholeValueSet(field: string): Document {
  const entry = { $first: { $filter: { input: UPDATED, cond: { $eq: ["$$this.k", field] } } } };
  return { $getField: { field: "v", input: entry } };
}

/** The array index "field.7" or "field.7.x" names, as an expression over `key`; -1 for other keys. */
function indexIn(key: string, field: string): Document {
  return { $cond: [{ $eq: [{ $arrayElemAt: [{ $split: [key, "."] }, 0] }, field] }, positionIn(key), -1] };
}

/** The number "a.7" or "a.7.x" has second, as an expression over `key`; negative for "a", "a.b", "a.-1". */
function positionIn(key: string): Document {
  const second = { $arrayElemAt: [{ $split: [key, "."] }, 1] };
  return { $convert: { input: second, to: "long", onError: -1, onNull: -1 } };
}

/** The highest array index of `field` the update set ("field.7", "field.7.x"), or -1. */
export function highestIndexSet(field: string): Document {
  return { $max: [-1, { $max: { $map: { input: UPDATED, in: indexIn("$$this.k", field) } } }] };
}

/**
 * Whether the update left the array `field` longer than `limit` (or, with `orNotArray`, set
 * it to something that is not an array), as far as it tells. One pass over updatedFields:
 * this runs on every update event the stream sees.
 */
export function arraySetPast(field: string, limit: number, orNotArray: boolean): Document {
  const value = "$$this.v";
  const wholeBreaks = orNotArray
    ? { $or: [{ $not: [{ $isArray: value }] }, { $gt: [arraySize(value), limit] }] }
    : { $gt: [arraySize(value), limit] };
  const entryBreaks = {
    $cond: [{ $eq: ["$$this.k", field] }, wholeBreaks, { $gte: [indexIn("$$this.k", field), limit] }],
  };
  return { $anyElementTrue: [{ $map: { input: UPDATED, in: entryBreaks } }] };
}

/**
 * The updatedFields entries ({k, v}) that set an entry of one of the arrays `fields` by its
 * position, "<field>.<index>": one for each entry a `$push` appended. For the projected event
 * (positionsSet), no larger than the updateDescription it comes from.
 */
export function positionsSetIn(fields: readonly string[]): Document {
  const parts = { $split: ["$$this.k", "."] };
  return {
    $filter: {
      input: UPDATED,
      cond: {
        $and: [
          { $eq: [{ $size: parts }, 2] },
          { $in: [{ $arrayElemAt: [parts, 0] }, { $literal: fields }] },
          { $gte: [positionIn("$$this.k"), 0] },
        ],
      },
    },
  };
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
