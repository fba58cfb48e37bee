// The bucket rule's `$match` condition over change events with `fullDocument`.
import type { Document } from "mongodb";
import { arraySize, fullDocumentPath, presentButNotArray } from "../common/event-filters.js";
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
