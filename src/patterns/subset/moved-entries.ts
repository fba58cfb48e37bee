// An entry an application moved to another source (its reference set) whose event has no
// pre-image (expired, or pre-images off): the event names the new source only. The sources
// that still embed the entry (its id and date, under another source than the one it names
// now) are found by a scan of the sources, and the entry leaves each as a propagated delete
// would (docs/semantics.md, subset pattern: "A review moved to another product").
import type { Db } from "mongodb";
import type { CorrectionTarget, PlanContext, WatchedWrite } from "../driver.js";
import type { Plan } from "../plan.js";
import { RAW, verbatim, verbatimOrNull } from "../bson/bson-value.js";
import type { SubsetRule } from "./rule.js";
import { DELETED_ENTRY, MOVED_ENTRY } from "./targets.js";

/** Whether a write to the full set may have changed an entry's reference unseen (no pre-image). */
export function mayHaveMovedUnseen(rule: SubsetRule, write: WatchedWrite): boolean {
  if (!rule.propagateDeletes || write.fullDocumentBeforeChange) return false;
  if (write.operationType === "replace") return true;
  return (
    write.operationType === "update" &&
    write.fieldsSet !== undefined &&
    rule.referenceField in write.fieldsSet
  );
}

/** The correction that looks for the sources an entry may have left; never joined with another. */
export function movedEntryTarget(rule: SubsetRule, write: WatchedWrite): CorrectionTarget<SubsetRule> {
  return {
    rule,
    role: MOVED_ENTRY,
    collection: rule.fullSetCollection,
    id: write.id,
    detail: { moved: true },
  };
}

/** The propagated deletes of the entry `entryId` from the sources that embed it but that it no longer names. */
export async function formerSources(
  db: Db,
  rule: SubsetRule,
  entryId: unknown,
  { session }: Pick<PlanContext, "session">,
): Promise<CorrectionTarget<SubsetRule>[]> {
  const projection = { [rule.referenceField]: 1, [rule.idField]: 1, [rule.sortField]: 1 };
  const entry = verbatimOrNull(
    await db
      .collection(rule.fullSetCollection)
      .findOne({ _id: entryId as never }, { session, projection, ...RAW }),
  );
  if (!entry) return [];
  const { [rule.referenceField]: sourceId, [rule.idField]: id, [rule.sortField]: date } = entry;
  if (id === undefined || id === null) return [];
  const embedding = { [rule.arrayField]: { $elemMatch: { [rule.idField]: id, [rule.sortField]: date } } };
  const holders = await db
    .collection(rule.collection)
    .find({ _id: { $ne: sourceId }, ...embedding }, { session, projection: { _id: 1 }, ...RAW })
    .map(verbatim)
    .toArray();
  return holders.map((holder) => ({
    rule,
    role: DELETED_ENTRY,
    collection: rule.collection,
    id: holder._id,
    detail: { entryId: id, deletedId: entryId },
  }));
}

/** One plan of the plans of several sources, in one transaction: a skip of any skips them all. */
export function mergedPlan(plans: readonly Plan[]): Plan {
  const skipped = plans.find((plan) => plan.outcome === "skip");
  if (skipped) return skipped;
  const writing = plans.flatMap((plan) => (plan.outcome === "writes" ? [plan] : []));
  if (writing.length === 0) return { outcome: "none" };
  return {
    outcome: "writes",
    kind: writing[0]!.kind,
    writes: writing.flatMap((plan) => plan.writes),
    elementsMoved: writing.reduce((sum, plan) => sum + plan.elementsMoved, 0),
  };
}
