// Reads a product and the part of its full set the subset planner needs: the full-set
// entries of what is embedded now, plus the `threshold` newest entries; for a delete being
// propagated, also the full-set document holding the deleted entry now, whether the copy
// ledger names it, and one more of the newest (to take the deleted entry's place).
import type { ClientSession, Db, Document } from "mongodb";
import { bsonKey, RAW, verbatim, verbatimOrNull } from "../common/bson-value.js";
import { ledgerId } from "./copy-ledger.js";
import { referringTo } from "../common/reference-filter.js";
import type { SubsetRule } from "./rule.js";
import type { SubsetState } from "./planner.js";

function embeddedIds(rule: SubsetRule, source: Document): unknown[] {
  const entries: unknown = source[rule.arrayField];
  if (!Array.isArray(entries)) return [];
  return entries
    .map((entry: unknown) =>
      entry && typeof entry === "object" ? (entry as Document)[rule.idField] : undefined,
    )
    .filter((id) => id !== undefined);
}

function uniqueById(documents: Document[]): Document[] {
  const byId = new Map<string, Document>();
  for (const doc of documents) byId.set(bsonKey(doc._id), doc);
  return [...byId.values()];
}

export async function readSubsetState(
  db: Db,
  rule: SubsetRule,
  sourceId: unknown,
  session?: ClientSession,
  newestCount = rule.threshold,
): Promise<SubsetState | null> {
  const source = verbatimOrNull(
    await db.collection(rule.collection).findOne({ _id: sourceId as never }, { session, ...RAW }),
  );
  if (!source) return null;
  const fullSet = db.collection(rule.fullSetCollection);
  const embedded = await fullSet
    .find(
      { ...referringTo(rule.referenceField, source._id), [rule.idField]: { $in: embeddedIds(rule, source) } },
      { session, ...RAW },
    )
    .map(verbatim)
    .toArray();
  const newest = await fullSet
    .find(referringTo(rule.referenceField, source._id), { session, ...RAW })
    .sort({ [rule.sortField]: -1, [rule.idField]: -1 })
    .limit(newestCount)
    .map(verbatim)
    .toArray();
  return { source, fullSet: uniqueById([...embedded, ...newest]) };
}

/** The state a propagated delete of entry `entryId` plans from (inside its transaction when given a session). */
export async function readDeletionState(
  db: Db,
  rule: SubsetRule,
  target: { sourceId: unknown; entryId: unknown; stateCollection: string },
  session?: ClientSession,
): Promise<SubsetState | null> {
  const state = await readSubsetState(db, rule, target.sourceId, session, rule.threshold + 1);
  if (!state) return null;
  const holder = verbatimOrNull(
    await db
      .collection(rule.fullSetCollection)
      .findOne(
        { ...referringTo(rule.referenceField, state.source._id), [rule.idField]: target.entryId },
        { session, ...RAW },
      ),
  );
  const ledgered =
    holder !== null &&
    (await db
      .collection(target.stateCollection)
      .findOne({ _id: ledgerId(holder._id) as never, rule: rule.name }, { session })) !== null;
  return {
    source: state.source,
    fullSet: holder ? uniqueById([...state.fullSet, holder]) : state.fullSet,
    deleted: { entryId: target.entryId, copyIds: ledgered ? [holder._id] : [] },
  };
}
