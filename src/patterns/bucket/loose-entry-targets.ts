// How the bucket driver reaches loose documents (loose-entries.ts): which events concern
// them, the correction each calls for (one per key, so that a key's folds run in order and a
// waiting one covers every later loose write of the key), and the index it reads through.
import type { ClientSession, Db, Document } from "mongodb";
import type { CorrectionTarget, IndexWanted, WatchedWrite } from "../driver.js";
import type { Plan } from "../plan.js";
import { describeValue } from "../bson/bson-value.js";
import { bucketKeyText } from "./bucket-ids.js";
import { foldsLooseEntries, planLooseEntryFold } from "./loose-entries.js";
import { readLooseEntryState } from "./open-bucket-reader.js";
import type { BucketRule } from "./rule.js";

export const LOOSE_KEY = "loose-key";

/** Post-image fields the targets are told apart by (a bucket has neither a date nor, loose, no count). */
export function looseEntryFields(rule: BucketRule): string[] {
  return foldsLooseEntries(rule) ? [rule.keyField, rule.dateField, rule.countField] : [];
}

// Only what a loose document may be gets the key's fold; a bucket that happens to carry a
// top-level date also keeps its own correction (index.ts), which plans nothing for a loose one.
export function looseEntryTargets(rule: BucketRule, write: WatchedWrite): CorrectionTarget<BucketRule>[] {
  const doc: Document | undefined = write.fullDocument;
  if (!foldsLooseEntries(rule) || write.collection !== rule.collection || !doc) return [];
  const key: unknown = doc[rule.keyField];
  if (doc[rule.dateField] === undefined || doc[rule.countField] !== undefined || key == null) return [];
  return [{ rule, role: LOOSE_KEY, collection: rule.collection, id: { [rule.keyField]: key } }];
}

export async function planLooseEntries(
  db: Db,
  rule: BucketRule,
  target: Document,
  session?: ClientSession,
): Promise<Plan> {
  const key: unknown = target[rule.keyField];
  const text = bucketKeyText(key);
  if (text === null) {
    return {
      outcome: "skip",
      reason: `${rule.keyField} is ${describeValue(key)}, expected a non-empty string, a number or an ObjectId`,
    };
  }
  return planLooseEntryFold(rule, await readLooseEntryState(db, rule, { text, value: key }, session));
}

/** Serves the loose documents of one key, oldest first (the fold and `migrate`). */
export function looseEntryIndexes(rule: BucketRule): IndexWanted[] {
  if (!foldsLooseEntries(rule)) return [];
  return [{ collection: rule.collection, keys: { [rule.keyField]: 1, [rule.dateField]: 1, _id: 1 } }];
}
