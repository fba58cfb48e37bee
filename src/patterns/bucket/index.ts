// The bucket pattern's driver: a bucket past `threshold` is split into new buckets named in
// time order, and a bucket whose count disagrees with its entries is repaired.
import type { PatternDriver } from "../driver.js";
import { writesMatching } from "../common/event-filters.js";
import { idsMatching } from "../common/sweep-queries.js";
import { bucketEventNeedsCorrection, bucketNeedsCorrection } from "./filters.js";
import { planBucketSplit } from "./planner.js";
import { readBucketState } from "./reader.js";
import { bucketRuleSchema, type BucketRule } from "./rule.js";

const BUCKET = "bucket";

export const bucketDriver: PatternDriver<BucketRule> = {
  pattern: "bucket",
  ruleSchema: bucketRuleSchema,
  ownedCollectionKeys: [],

  watchedCollections: (rule) => [rule.collection],

  eventFilters: (rule) => [writesMatching(rule.collection, bucketEventNeedsCorrection(rule))],

  needsUpdateLookup: () => false,

  projectedFields: () => [],

  targetsOf: (rule, { collection, id }) =>
    collection === rule.collection ? [{ rule, role: BUCKET, collection, id }] : [],

  async plan(db, { rule, id }, session) {
    const state = await readBucketState(db, rule, id, session);
    return state ? planBucketSplit(rule, state) : { outcome: "none" };
  },

  indexes: () => [],

  async *sweepCandidates(db, rule) {
    for await (const id of idsMatching(db, rule.collection, bucketNeedsCorrection(rule)))
      yield { rule, role: BUCKET, collection: rule.collection, id };
  },

  correctionSeries: (rule) => [{ collection: rule.collection, kinds: ["split", "repaired"] }],

  describe: (rule) =>
    `${rule.collection}.${rule.arrayField}: at most ${rule.threshold} entries per bucket of ${rule.keyField}, ` +
    `new buckets _id'd "<${rule.keyField}>_<seconds of ${rule.dateField}>"; ${rule.countField} = entries`,
};
