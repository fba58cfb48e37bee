// The outlier rule's `$match` conditions: over documents (sweeps dress them as events with
// `fullDocument`) and over change events, where an update is judged by its updateDescription
// so that the stream needs no post-image for it.
import type { Document } from "mongodb";
import { arraySize, fullDocumentPath, presentButNotArray } from "../events/event-filters.js";
import { arraySetPast, eventsBreaking } from "../events/update-filters.js";
import type { OutlierRule } from "./rule.js";

/** True iff the source document may break the rule (too many entries, or not an array). */
export function outlierNeedsCorrection(rule: OutlierRule): Document {
  const path = fullDocumentPath(rule.arrayField);
  return { $expr: { $or: [{ $gt: [arraySize(path), rule.threshold] }, presentButNotArray(path)] } };
}

/**
 * True for an overflow document holding more than chunkSize entries, or without a sequence
 * (an application's upsert, adopted or put after the numbered chunks: planner.ts).
 */
export function chunkNeedsCorrection(rule: OutlierRule): Document {
  const entries = fullDocumentPath(rule.overflowArrayField);
  const sequence = fullDocumentPath(rule.sequenceField);
  return {
    $expr: {
      $or: [{ $gt: [arraySize(entries), rule.chunkSize] }, { $eq: [{ $type: sequence }, "missing"] }],
    },
  };
}

/** A source event that may leave it broken: an update that set an entry past the threshold. */
export function outlierEventNeedsCorrection(rule: OutlierRule): Document {
  return eventsBreaking(outlierNeedsCorrection(rule), arraySetPast(rule.arrayField, rule.threshold, true));
}

/** An overflow-chunk event that may leave it overfilled, or the insert of a chunk without a sequence. */
export function chunkEventNeedsCorrection(rule: OutlierRule): Document {
  return eventsBreaking(
    chunkNeedsCorrection(rule),
    arraySetPast(rule.overflowArrayField, rule.chunkSize, false),
  );
}
