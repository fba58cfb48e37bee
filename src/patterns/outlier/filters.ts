// The outlier rule's `$match` conditions over change events with `fullDocument`.
import type { Document } from "mongodb";
import { arraySize, fullDocumentPath, presentButNotArray } from "../common/event-filters.js";
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
