// The bucket rule's `$match` conditions: over documents (sweeps dress them as events with
// `fullDocument`) and over change events, where an update is judged by its updateDescription.
import type { Document } from "mongodb";
import { arraySize, fullDocumentPath, presentButNotArray } from "../events/event-filters.js";
import {
  eventsBreaking,
  highestIndexSet,
  topLevelFieldsTouched,
  wholeValueSet,
} from "../events/update-filters.js";
import type { BucketRule } from "./rule.js";

/** True iff the bucket may break the rule: too many entries, a wrong count, or not an array. */
export function bucketNeedsCorrection(rule: BucketRule): Document {
  const path = fullDocumentPath(rule.arrayField);
  const count = fullDocumentPath(rule.countField);
  return {
    $expr: {
      $or: [
        { $gt: [arraySize(path), rule.threshold] },
        { $and: [{ $isArray: path }, { $ne: [count, arraySize(path)] }] },
        presentButNotArray(path),
      ],
    },
  };
}

/**
 * An update that shows the bucket whole: it set the count to the array's new length (the
 * whole array's size, or one past the last index it appended) and that length is within the
 * threshold. Anything else that touched the array or the count may have broken it.
 */
function updateShowsBucketWhole(rule: BucketRule): Document {
  const entries = wholeValueSet(rule.arrayField);
  const count = wholeValueSet(rule.countField);
  const lastAppended = highestIndexSet(rule.arrayField);
  const length = { $cond: [{ $isArray: entries }, { $size: entries }, { $add: [lastAppended, 1] }] };
  return {
    $and: [
      { $or: [{ $isArray: entries }, { $gte: [lastAppended, 0] }] },
      { $ne: [{ $type: count }, "missing"] },
      { $eq: [count, length] },
      { $lte: [length, rule.threshold] },
    ],
  };
}

/** A bucket event that may leave it broken: judged whole for inserts and replaces, by what an update set otherwise. */
export function bucketEventNeedsCorrection(rule: BucketRule): Document {
  const touched = topLevelFieldsTouched();
  const touchesBucket = { $or: [{ $in: [rule.arrayField, touched] }, { $in: [rule.countField, touched] }] };
  const updateBreaks = { $and: [touchesBucket, { $not: [updateShowsBucketWhole(rule)] }] };
  return eventsBreaking(bucketNeedsCorrection(rule), updateBreaks);
}
