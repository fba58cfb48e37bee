// The outlier rule's `$match` conditions: over documents (sweeps dress them as events with
// `fullDocument`) and over change events, where an update is judged by its updateDescription
// so that the stream needs no post-image for it.
import type { Document } from "mongodb";
import { arraySize, fullDocumentPath, presentButNotArray } from "../common/event-filters.js";
import { arraySetPast, IS_INSERT_OR_REPLACE, IS_UPDATE } from "../common/update-filters.js";
import type { OutlierRule } from "./rule.js";

/** True iff the source document may break the rule (too many entries, or not an array). */
export function outlierNeedsCorrection(rule: OutlierRule): Document {
  const path = fullDocumentPath(rule.arrayField);
  return { $expr: { $or: [{ $gt: [arraySize(path), rule.threshold] }, presentButNotArray(path)] } };
}

/** True for an overflow document holding more than chunkSize entries. */
export function overfilledChunk(rule: OutlierRule): Document {
  const entries = fullDocumentPath(rule.overflowArrayField);
  return { $expr: { $gt: [arraySize(entries), rule.chunkSize] } };
}

/** A source event that may leave it broken: an update that set an entry past the threshold. */
export function outlierEventNeedsCorrection(rule: OutlierRule): Document {
  const { arrayField, threshold } = rule;
  return {
    $or: [
      { $and: [IS_INSERT_OR_REPLACE, outlierNeedsCorrection(rule)] },
      { $and: [IS_UPDATE, { $expr: arraySetPast(arrayField, threshold, true) }] },
    ],
  };
}

/** An overflow-chunk event that may leave it overfilled. */
export function overfilledChunkEvent(rule: OutlierRule): Document {
  const { overflowArrayField, chunkSize } = rule;
  return {
    $or: [
      { $and: [IS_INSERT_OR_REPLACE, overfilledChunk(rule)] },
      { $and: [IS_UPDATE, { $expr: arraySetPast(overflowArrayField, chunkSize, false) }] },
    ],
  };
}
