// The subset driver's kinds of correction target. Every correction of a source starts from
// the source, under the source's key (src/stream/events/targets.ts), so that the corrections of one
// source run in the order of the events that called for them, whichever collection those
// events were about.
import type { CorrectionTarget } from "../driver.js";
import type { SubsetRule } from "./rule.js";

/** A plain correction: the source and its full set, as they are now. */
export const SOURCE = "source";
/** A delete in the full set to propagate; the entry travels in the target's detail. */
export const DELETED_ENTRY = "deleted-entry";
/** An update of a full-set entry whose event shows no reference: keyed by the entry, which is read. */
export const ENTRY = "entry";
/** An entry whose reference an update set, without a pre-image: keyed by the entry (moved-entries.ts). */
export const MOVED_ENTRY = "moved-entry";
/** A delete whose event had no pre-image: keyed by the deleted document, only reported. */
export const DELETE_WITHOUT_PRE_IMAGE = "delete-without-pre-image";

export function sourceTarget(rule: SubsetRule, id: unknown): CorrectionTarget<SubsetRule> {
  return { rule, role: SOURCE, collection: rule.collection, id };
}
