// Which source a write to the full set concerns. An insert or a replace names it in its
// document. An update names it in what it set, or, left as it was, in its pre-image: while
// pre-images are on, the stream looks up no post-image (mongod would look up every update to
// a watched collection for it, before the `$match`). An update with neither (its pre-image
// expired, or pre-images were off) is corrected from the entry itself (ENTRY), which names
// its source when read.
import type { ClientSession, Db } from "mongodb";
import type { CorrectionTarget, WatchedWrite } from "../driver.js";
import { sameBsonValue } from "../bson/bson-value.js";
import type { SubsetRule } from "./rule.js";
import { ENTRY, sourceTarget } from "./targets.js";

/** A reference the event does not show. */
const UNSHOWN = Symbol("reference not shown");

/** The entry's reference after the write (undefined or null: none), or UNSHOWN. */
function referenceAfter(rule: SubsetRule, write: WatchedWrite): unknown {
  const field = rule.referenceField;
  if (write.fullDocument) return write.fullDocument[field];
  if (write.operationType !== "update") return undefined;
  if (write.fieldsSet && field in write.fieldsSet) return write.fieldsSet[field];
  if (write.fieldsRemoved?.includes(field)) return undefined;
  return write.fullDocumentBeforeChange ? write.fullDocumentBeforeChange[field] : UNSHOWN;
}

/** The correction a write to the full set calls for: its source's, or the entry's own. */
export function targetsOfFullSetEntry(rule: SubsetRule, write: WatchedWrite): CorrectionTarget<SubsetRule>[] {
  const sourceId = referenceAfter(rule, write);
  if (sourceId === UNSHOWN) return [{ rule, role: ENTRY, collection: rule.fullSetCollection, id: write.id }];
  return sourceId === undefined || sourceId === null ? [] : [sourceTarget(rule, sourceId)];
}

/** Whether an update of a full-set entry changed its reference, as the pre-image shows. */
export function movedAway(rule: SubsetRule, write: WatchedWrite): boolean {
  const before = write.fullDocumentBeforeChange;
  if (!rule.propagateDeletes || !before || !(rule.referenceField in before)) return false;
  const after = referenceAfter(rule, write);
  return after !== UNSHOWN && !sameBsonValue(before[rule.referenceField], after);
}

/** The correction of the source an entry names now; undefined when it is gone or names none. */
export async function sourceOfEntry(
  db: Db,
  rule: SubsetRule,
  entryId: unknown,
  session?: ClientSession,
): Promise<CorrectionTarget<SubsetRule> | undefined> {
  const entry = await db
    .collection(rule.fullSetCollection)
    .findOne({ _id: entryId as never }, { session, projection: { [rule.referenceField]: 1 } });
  const sourceId: unknown = entry?.[rule.referenceField];
  return sourceId === undefined || sourceId === null ? undefined : sourceTarget(rule, sourceId);
}
