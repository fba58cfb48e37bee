// The subset rule's `$match` condition over change events with `fullDocument`.
import type { Document } from "mongodb";
import { arraySize, fullDocumentPath, presentButNotArray } from "../common/event-filters.js";
import type { SubsetRule } from "./rule.js";

// Top-level fields an update event's updateDescription names ("reviews.3" -> "reviews").
function topLevelFieldsTouched(): Document {
  const description = "$updateDescription";
  const updated = {
    $map: { input: { $objectToArray: { $ifNull: [`${description}.updatedFields`, {}] } }, in: "$$this.k" },
  };
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

/**
 * True iff the source may break the rule. An update event counts only when it touched the
 * embedded array (another field, a price, cannot break the subset; full-set writes have
 * events of their own). Inserts and replaces always count (the full set may already hold
 * entries of a product inserted after them). The sweep's documents dressed as events (no
 * updateDescription) count when they embed anything; one embedding nothing is reached
 * through its full-set entries instead.
 */
export function subsetNeedsCorrection(rule: SubsetRule): Document {
  const path = fullDocumentPath(rule.arrayField);
  const embedsSomething = { $or: [{ $gt: [arraySize(path), 0] }, presentButNotArray(path)] };
  return {
    $or: [
      { operationType: { $in: ["insert", "replace"] } },
      { $and: [{ updateDescription: { $exists: false } }, { $expr: embedsSomething }] },
      { $expr: { $in: [rule.arrayField, topLevelFieldsTouched()] } },
    ],
  };
}
