// `migrate`: turns a collection of loose trades (the bucket seed's schema before buckets)
// into buckets of `threshold` per key in time order, beside the live applications.
//
// One cursor reads every loose document in (key, date, _id) order through the index
// looseEntryIndexes creates; groups of at most `threshold` of one key are held in memory,
// each committed as one transaction that inserts its bucket and deletes its documents.
// Resumable by construction: a committed group's documents are gone, so a migration killed
// anywhere and run again reads exactly the documents it had not moved, and, because a key's
// groups are cut from the start of its sorted list, makes the buckets an unbroken run makes.
import type { ClientSession, Db, Document } from "mongodb";
import type { MigrationOptions, MigrationReport } from "../driver.js";
import type { Plan } from "../plan.js";
import { bsonKey, RAW, verbatim } from "../bson/bson-value.js";
import { bucketKeyText } from "./bucket-ids.js";
import { planLooseEntryFold } from "./loose-entries.js";
import { bucketIdsOf, oldestFirst } from "./open-bucket-reader.js";
import type { BucketRule } from "./rule.js";

function everyLooseEntry(rule: BucketRule): Document {
  return {
    [rule.keyField]: { $exists: true, $ne: null },
    [rule.dateField]: { $type: "date" },
    [rule.arrayField]: { $exists: false },
    [rule.countField]: { $exists: false },
  };
}

// Re-read inside the transaction: a document folded live (or by another migration) since
// the cursor returned it is left out instead of making the plan stale again and again.
async function planGroup(db: Db, rule: BucketRule, group: Document[], session: ClientSession): Promise<Plan> {
  const key: unknown = group[0]?.[rule.keyField];
  const ids = group.map((doc) => doc._id as unknown);
  const entries = await db
    .collection(rule.collection)
    .find({ ...everyLooseEntry(rule), _id: { $in: ids } as never }, { session, ...RAW })
    .sort(oldestFirst(rule))
    .map(verbatim)
    .toArray();
  const keyText = bucketKeyText(key);
  const takenIds = keyText === null ? new Set<string>() : await bucketIdsOf(db, rule, keyText, session);
  return planLooseEntryFold(rule, { key, entries, openBucket: null, takenIds });
}

export async function migrateLooseEntries(
  db: Db,
  rule: BucketRule,
  options: MigrationOptions,
): Promise<MigrationReport> {
  const report: MigrationReport = { rule: rule.name, moved: 0, documentsCreated: 0, skipped: 0 };
  const flush = async (group: Document[]) => {
    if (group.length === 0) return;
    const plan = options.dryRun
      ? ({ outcome: "writes", kind: "folded", writes: [], elementsMoved: group.length } as const)
      : await options.commit((session) => planGroup(db, rule, group, session));
    if (plan.outcome === "writes") {
      report.moved += plan.elementsMoved;
      report.documentsCreated += 1;
    } else if (plan.outcome === "skip") report.skipped += group.length;
    options.onProgress(report);
  };
  const cursor = db.collection(rule.collection).find(everyLooseEntry(rule), RAW).sort(oldestFirst(rule));
  let group: Document[] = [];
  for await (const raw of cursor) {
    const doc = verbatim(raw);
    const sameKey = group.length > 0 && bsonKey(group[0]?.[rule.keyField]) === bsonKey(doc[rule.keyField]);
    if (group.length > 0 && (!sameKey || group.length === rule.threshold)) {
      await flush(group);
      group = [];
    }
    group.push(doc);
  }
  await flush(group);
  return report;
}
