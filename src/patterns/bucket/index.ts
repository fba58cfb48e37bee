// The bucket pattern's driver: a bucket past `threshold` is split into new buckets named in
// time order, and a bucket whose count disagrees with its entries is repaired.
import type { Db, Document } from "mongodb";
import type { PatternDriver, PlanContext, ReadContext, WatchedWrite } from "../driver.js";
import type { Plan } from "../plan.js";
import { writesMatching } from "../events/event-filters.js";
import { setPastThreshold } from "../events/positions-set.js";
import { documentsMatching } from "../reads/sweep-queries.js";
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
import { planBucketSplits } from "./planner.js";
import { readBucketStates } from "./reader.js";
import { bucketRuleSchema, type BucketRule } from "./rule.js";

const BUCKET = "bucket";

/** Plans the splits (or count repairs) of several buckets from one read of them all. */
async function planBuckets(
  db: Db,
  rule: BucketRule,
  bucketIds: readonly unknown[],
  reads: ReadContext & Pick<PlanContext, "maxWrites">,
): Promise<Plan[]> {
  const { buckets, takenIds } = await readBucketStates(db, rule, bucketIds, reads);
  return planBucketSplits(rule, buckets, takenIds, reads.maxWrites);
}

/**
 * A written document without the array (a loose trade, say) is no bucket to split or repair
 * (bucketNeedsCorrection): one whose event shows it so needs no correction as a bucket.
 */
function showsNoEntries(rule: BucketRule, write: WatchedWrite): boolean {
  return write.fieldsPresent !== undefined && !write.fieldsPresent.includes(rule.arrayField);
}

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
            ...(showsNoEntries(rule, write)
              ? []
              : [{ rule, role: BUCKET, collection: write.collection, id: write.id }]),
            ...looseEntryTargets(rule, write),
          ]
        : [],

    // Whether a document has entries decides whether it may be a broken bucket; their values
    // would only make the event larger.
    presenceFields: (rule) => [rule.arrayField],

    positionFields: (rule) => [rule.arrayField],

    // An update that set an entry past the threshold left the bucket too full; a loose
    // document's fold is due from the moment it is written (only its insert or replace names
    // the key: looseEntryTargets).
    eventShowsBroken: (rule, write, target) =>
      target.role === LOOSE_KEY ||
      (target.id === write.id && setPastThreshold(write.positionsSet, rule.arrayField, rule.threshold)),

    // A customer's folds share a partition, a bucket's splits another: a split and a fold of
    // one customer are different corrections in one replica too, kept apart by their
    // transactions. A bucket's own `_id` is what every event of it carries.
    partitionKey: (rule, { role, id }) => (role === LOOSE_KEY ? (id as Document)[rule.keyField] : id),

    eventPartitionKeys: (rule) => [
      "$documentKey._id",
      ...(foldsLooseEntries(rule) ? [`$fullDocument.${rule.keyField}`] : []),
    ],
  },

  planning: {
    // A split reads and writes its bucket and inserts new ones, a fold reads and writes its
    // key's loose documents and buckets: distinct targets touch distinct documents but for new
    // buckets' `_id`s, which planMany hands out across the batch's splits, and which the unique
    // `_id` index guards otherwise (a collision aborts the shared transaction, and each target
    // is corrected alone).
    independentTargets: () => true,

    async plan(db, { rule, role, id }, context) {
      if (role === LOOSE_KEY)
        return (await planLooseEntries(db, rule, [id as Document], context.session))[0]!;
      const [plan] = await planBuckets(db, rule, [id], context);
      return plan!;
    },

    async planMany(db, rule, targets, context) {
      const { session } = context;
      if (targets[0]?.role !== LOOSE_KEY)
        return planBuckets(
          db,
          rule,
          targets.map((target) => target.id),
          context,
        );
      return planLooseEntries(
        db,
        rule,
        targets.map((target) => target.id as Document),
        session,
      );
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
