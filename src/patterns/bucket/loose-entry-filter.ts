// The change-stream `$match` condition for loose entries (loose-entries.ts): the same test as
// isLooseEntry, over the event's post-image.
import type { Document } from "mongodb";
import { writesMatching } from "../events/event-filters.js";
import type { BucketRule } from "./rule.js";

export function looseEntryWritten(rule: BucketRule): Document {
  const field = (name: string) => `fullDocument.${name}`;
  return writesMatching(rule.collection, {
    [field(rule.arrayField)]: { $exists: false },
    [field(rule.countField)]: { $exists: false },
    [field(rule.keyField)]: { $exists: true, $ne: null },
    [field(rule.dateField)]: { $type: "date" },
  });
}
