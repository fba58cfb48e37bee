// How the bucket driver reaches loose documents (loose-entries.ts): which events concern
// them, the correction each calls for (one per key, so that a key's folds run in order and a
// waiting one covers every later loose write of the key), and the index it reads through.
import type { ClientSession, Db, Document } from "mongodb";
import type { CorrectionTarget, IndexWanted, WatchedWrite } from "../driver.js";
import type { Plan } from "../plan.js";
import { describeValue } from "../bson/bson-value.js";
import { bucketKeyText } from "./bucket-ids.js";
import { foldsLooseEntries, planLooseEntryFold } from "./loose-entries.js";
import { readLooseEntryStates, type LooseKey } from "./open-bucket-reader.js";
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

/** Plans the folds of several keys (loose-key targets) from one read of them all. */
export async function planLooseEntries(
  db: Db,
  rule: BucketRule,
  targets: readonly Document[],
  session?: ClientSession,
): Promise<Plan[]> {
  const keys = targets.map((target) => {
    const value: unknown = target[rule.keyField];
    return { value, text: bucketKeyText(value) };
  });
  const readable = keys.filter((key): key is LooseKey => key.text !== null);
  const states = readable.length > 0 ? await readLooseEntryStates(db, rule, readable, session) : [];
  let next = 0;
  return keys.map((key): Plan => {
    if (key.text === null)
      return {
        outcome: "skip",
        reason: `${rule.keyField} is ${describeValue(key.value)}, expected a non-empty string, a number or an ObjectId`,
      };
    return planLooseEntryFold(rule, states[next++]!);
  });
}

/** Serves the loose documents of one key, oldest first (the fold and `migrate`). */
export function looseEntryIndexes(rule: BucketRule): IndexWanted[] {
  if (!foldsLooseEntries(rule)) return [];
  return [{ collection: rule.collection, keys: { [rule.keyField]: 1, [rule.dateField]: 1, _id: 1 } }];
}
