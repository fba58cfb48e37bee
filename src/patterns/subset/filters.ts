// The subset rule's `$match` conditions: over documents (sweeps dress them as events with
// `fullDocument`) and over change events.
import type { Document } from "mongodb";
import { arraySize, fullDocumentPath, presentButNotArray } from "../events/event-filters.js";
import { IS_INSERT_OR_REPLACE, IS_UPDATE, topLevelFieldsTouched } from "../events/update-filters.js";
import type { SubsetRule } from "./rule.js";

/** A swept product counts when it embeds anything; one embedding nothing is reached through its full-set entries. */
export function subsetNeedsCorrection(rule: SubsetRule): Document {
  const path = fullDocumentPath(rule.arrayField);
  return { $expr: { $or: [{ $gt: [arraySize(path), 0] }, presentButNotArray(path)] } };
}

/**
 * An update event counts only when it touched the embedded array (another field, a price,
 * cannot break the subset; full-set writes have events of their own). Inserts and replaces
 * always count (the full set may already hold entries of a product inserted after them).
 */
export function subsetEventNeedsCorrection(rule: SubsetRule): Document {
  return {
    $or: [
      IS_INSERT_OR_REPLACE,
      { $and: [IS_UPDATE, { $expr: { $in: [rule.arrayField, topLevelFieldsTouched()] } }] },
    ],
  };
}
