// Reads a product and the part of its full set the subset planner needs: the full-set
// entries of what is embedded now, plus the `threshold` newest entries.
import { EJSON } from "bson";
import type { ClientSession, Db, Document } from "mongodb";
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
  for (const doc of documents) byId.set(EJSON.stringify({ id: doc._id }, { relaxed: false }), doc);
  return [...byId.values()];
}

export async function readSubsetState(
  db: Db,
  rule: SubsetRule,
  sourceId: unknown,
  session?: ClientSession,
): Promise<SubsetState | null> {
  const source = await db.collection(rule.collection).findOne({ _id: sourceId as never }, { session });
  if (!source) return null;
  const fullSet = db.collection(rule.fullSetCollection);
  const embedded = await fullSet
    .find(
      { [rule.referenceField]: source._id, [rule.idField]: { $in: embeddedIds(rule, source) } },
      { session },
    )
    .toArray();
  const newest = await fullSet
    .find({ [rule.referenceField]: source._id }, { session })
    .sort({ [rule.sortField]: -1, [rule.idField]: -1 })
    .limit(rule.threshold)
    .toArray();
  return { source, fullSet: uniqueById([...embedded, ...newest]) };
}
