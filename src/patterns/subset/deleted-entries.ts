// How a delete in the full set reaches the subset. A delete event carries only the deleted
// document's `_id`; its pre-image (change-stream pre-images, enabled on the full-set
// collection at start) names the source and the entry. The correction it calls for starts
// from the source, under the source's key, so it runs after every earlier correction of
// that source, and it carries the entry, which nothing left in the database names.
import { ObjectId, type Db } from "mongodb";
import type { CollectionOptionWanted, CorrectionTarget, PlanContext, WatchedWrite } from "../driver.js";
import { readCopyRecord, type CopyLedger } from "./copy-ledger.js";
import type { Plan } from "../plan.js";
import { describeValue } from "../bson/bson-value.js";
import type { SubsetRequest } from "./reader.js";
import type { SubsetRule } from "./rule.js";
import { DELETE_WITHOUT_PRE_IMAGE, DELETED_ENTRY, sourceTarget } from "./targets.js";

/** The ledger a rule records its copies in: only a rule that propagates deletes needs one. */
export function copyLedgerOf(rule: SubsetRule, context: PlanContext): CopyLedger | undefined {
  return rule.propagateDeletes
    ? { collection: context.stateCollection, newId: () => new ObjectId() }
    : undefined;
}

export function preImageFields(rule: SubsetRule): string[] {
  return rule.propagateDeletes ? [rule.referenceField, rule.idField] : [];
}

export function preImageOptions(rule: SubsetRule): CollectionOptionWanted<SubsetRule>[] {
  if (!rule.propagateDeletes) return [];
  return [
    {
      collection: rule.fullSetCollection,
      options: { changeStreamPreAndPostImages: { enabled: true } },
      neededFor: `deletes in ${rule.fullSetCollection} to reach ${rule.collection}.${rule.arrayField}`,
      fallback: { ...rule, propagateDeletes: false },
    },
  ];
}

/**
 * The correction a delete of a full-set document calls for. Without a pre-image (pre-images
 * were off when it happened, or expired) the event does not say which source embeds the
 * entry: the target then names the deleted document, which planDeletedEntry looks up in the
 * copy ledger.
 */
export function deletedEntryTargets(rule: SubsetRule, write: WatchedWrite): CorrectionTarget<SubsetRule>[] {
  const preImage = write.fullDocumentBeforeChange;
  if (!preImage)
    return [{ rule, role: DELETE_WITHOUT_PRE_IMAGE, collection: write.collection, id: write.id }];
  const sourceId: unknown = preImage[rule.referenceField];
  if (sourceId === undefined || sourceId === null) return [];
  const entryId: unknown = preImage[rule.idField];
  // An entry without an id was never embedded; the source's plain correction covers it.
  if (entryId === undefined || entryId === null) return [sourceTarget(rule, sourceId)];
  const detail = { entryId, deletedId: write.id };
  return [{ rule, role: DELETED_ENTRY, collection: rule.collection, id: sourceId, detail }];
}

/**
 * What the correction of `target` reads (readSubsetStates): its source, and the entry a
 * propagated delete removes. A delete without a pre-image is found in the copy ledger: a copy
 * the sidecar made is there with its source and entry until pruned (minutes after the stream
 * passed it), which covers a delete soon after the copy whose pre-image is gone. An
 * application's own insert, or an older copy, gives none: it is only reported (noPreImage).
 * A target without its entry (a parked one edited by hand, say) is a plain correction.
 */
export async function requestOf(
  db: Db,
  { rule, role, id, detail }: CorrectionTarget<SubsetRule>,
  context: PlanContext,
): Promise<SubsetRequest | undefined> {
  if (role === DELETE_WITHOUT_PRE_IMAGE) {
    const copy = await readCopyRecord(db, context.stateCollection, id, rule.name, context.session);
    return copy ? { sourceId: copy.source, entryId: copy.entry } : undefined;
  }
  const entryId: unknown = detail?.entryId;
  return entryId === undefined || entryId === null ? { sourceId: id } : { sourceId: id, entryId };
}

export function noPreImage(rule: SubsetRule, deletedId: unknown): Plan {
  return {
    outcome: "skip",
    kind: "skipped_no_pre_image",
    reason:
      `the delete of ${rule.fullSetCollection} ${describeValue(deletedId)} has no pre-image and is no copy ` +
      `the ledger holds, so which ` +
      `${rule.collection} document embeds it is unknown: not propagated (an entry still embedded is copied back)`,
  };
}
