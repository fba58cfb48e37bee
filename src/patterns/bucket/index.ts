// The bucket pattern's driver: a bucket past `threshold` is split into new buckets named in
// time order, and a bucket whose count disagrees with its entries is repaired.
import type { Document } from "mongodb";
import type { PatternDriver } from "../driver.js";
import { writesMatching } from "../common/event-filters.js";
import { documentsMatching } from "../common/sweep-queries.js";
import { bucketEventNeedsCorrection, bucketNeedsCorrection } from "./filters.js";
import { looseEntryWritten } from "./loose-entry-filter.js";
import { foldsLooseEntries } from "./loose-entries.js";
import { migrateLooseEntries } from "./migrate-loose-entries.js";
import {
  LOOSE_KEY,
  looseEntryFields,
  looseEntryIndexes,
  looseEntryTargets,
  planLooseEntries,
} from "./loose-entry-targets.js";
import { planBucketSplit } from "./planner.js";
import { readBucketState } from "./reader.js";
import { bucketRuleSchema, type BucketRule } from "./rule.js";

const BUCKET = "bucket";

export const bucketDriver: PatternDriver<BucketRule> = {
  pattern: "bucket",
  ruleSchema: bucketRuleSchema,
  ownedCollectionKeys: [],

  stream: {
    watchedCollections: (rule) => [rule.collection],

    eventFilters: (rule) => [
      writesMatching(rule.collection, bucketEventNeedsCorrection(rule)),
      ...(foldsLooseEntries(rule) ? [looseEntryWritten(rule)] : []),
    ],

    // Loose entries are recognised from inserts and replaces, which carry the document; an
    // update to a loose entry waits for the customer's next loose write, or `migrate`.
    needsUpdateLookup: () => false,

    projectedFields: looseEntryFields,

    targetsOf: (rule, write) =>
      write.collection === rule.collection
        ? [
            { rule, role: BUCKET, collection: write.collection, id: write.id },
            ...looseEntryTargets(rule, write),
          ]
        : [],
  },

  planning: {
    async plan(db, { rule, role, id }, { session }) {
      if (role === LOOSE_KEY) return planLooseEntries(db, rule, id as Document, session);
      const state = await readBucketState(db, rule, id, session);
      return state ? planBucketSplit(rule, state) : { outcome: "none" };
    },
  },

  collections: {
    indexes: looseEntryIndexes,
  },

  sweepSources: (rule) => [
    documentsMatching(BUCKET, rule.collection, bucketNeedsCorrection(rule), (id) => ({
      rule,
      role: BUCKET,
      collection: rule.collection,
      id,
    })),
  ],

  migrate: (db, rule, options) =>
    foldsLooseEntries(rule)
      ? migrateLooseEntries(db, rule, options)
      : Promise.resolve({ rule: rule.name, moved: 0, documentsCreated: 0, skipped: 0 }),

  correctionSeries: (rule) => [{ collection: rule.collection, kinds: ["split", "repaired", "folded"] }],

  describe: (rule) =>
    `${rule.collection}.${rule.arrayField}: at most ${rule.threshold} entries per bucket of ${rule.keyField}, ` +
    `new buckets _id'd "<${rule.keyField}>_<seconds of ${rule.dateField}>"; ${rule.countField} = entries` +
    (foldsLooseEntries(rule)
      ? `; documents with ${rule.keyField} and ${rule.dateField} alone are folded in`
      : ""),
};
