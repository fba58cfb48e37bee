import type { Write } from "../plan.js";
import type { BucketRule } from "./rule.js";

/** The insert of a new bucket: `_id`, key, count and entries, and nothing else. */
export function newBucket(rule: BucketRule, id: string, key: unknown, entries: unknown[]): Write {
  return {
    op: "insertOne",
    collection: rule.collection,
    document: {
      _id: id,
      [rule.keyField]: key,
      [rule.countField]: entries.length,
      [rule.arrayField]: entries,
    },
  };
}
