// The subset pattern's driver: the source embeds the `threshold` newest entries of its full
// set; entries pushed into the source are copied to the full set first, entries written to
// the full set enter the source when they are among the newest.
import type { Document } from "mongodb";
import type { CorrectionTarget, PatternDriver } from "../driver.js";
import { writesMatching, writesTo } from "../common/event-filters.js";
import { distinctReferences, documentsMatching } from "../common/sweep-queries.js";
import { subsetEventNeedsCorrection, subsetNeedsCorrection } from "./filters.js";
import { planSubset } from "./planner.js";
import { readSubsetState } from "./reader.js";
import { subsetRuleSchema, type SubsetRule } from "./rule.js";

const SOURCE = "source";

function sourceTarget(rule: SubsetRule, id: unknown): CorrectionTarget<SubsetRule> {
  return { rule, role: SOURCE, collection: rule.collection, id };
}

// A review written straight into the full set concerns its product: the correction starts
// from the product, so it shares the product's ordering key with pushes to the product.
function targetsOfFullSetEntry(rule: SubsetRule, fullDocument: Document | undefined) {
  const sourceId: unknown = fullDocument?.[rule.referenceField];
  return sourceId === undefined || sourceId === null ? [] : [sourceTarget(rule, sourceId)];
}

export const subsetDriver: PatternDriver<SubsetRule> = {
  pattern: "subset",
  ruleSchema: subsetRuleSchema,
  ownedCollectionKeys: ["fullSetCollection"],

  watchedCollections: (rule) => [rule.collection, rule.fullSetCollection],

  eventFilters: (rule) => [
    writesMatching(rule.collection, subsetEventNeedsCorrection(rule)),
    // Any entry written to the full set may belong among the newest embedded ones; which it
    // does depends on the source, so the correction decides (a no-op when it does not).
    writesTo(rule.fullSetCollection),
  ],

  projectedFields: (rule) => [rule.referenceField],

  // The one lookup the stream still needs: an update of a full-set entry names its product
  // only in the entry itself (targetsOfFullSetEntry), unless the update changed that field.
  needsUpdateLookup: () => true,

  targetsOf(rule, { collection, id, fullDocument }) {
    if (collection === rule.collection) return [sourceTarget(rule, id)];
    if (collection === rule.fullSetCollection) return targetsOfFullSetEntry(rule, fullDocument);
    return [];
  },

  async plan(db, { rule, id }, session) {
    const state = await readSubsetState(db, rule, id, session);
    return state ? planSubset(rule, state) : { outcome: "none" };
  },

  indexes: (rule) => [
    {
      collection: rule.fullSetCollection,
      keys: { [rule.referenceField]: 1, [rule.idField]: 1 },
      options: { unique: true },
    },
    {
      collection: rule.fullSetCollection,
      // Serves the reader's "newest" query, ties broken by idField as the planner ranks them.
      keys: { [rule.referenceField]: 1, [rule.sortField]: -1, [rule.idField]: -1 },
    },
  ],

  sweepSources: (rule) => [
    documentsMatching("source", rule.collection, subsetNeedsCorrection(rule), (id) => sourceTarget(rule, id)),
    // A review written straight into the full set while no stream watched leaves no trace
    // on its product: every product with entries in the full set is a candidate, found
    // through the unique index that starts with the reference.
    distinctReferences("full-set", rule.fullSetCollection, rule.referenceField, rule.collection, (id) =>
      sourceTarget(rule, id),
    ),
  ],

  correctionSeries: (rule) => [{ collection: rule.collection, kinds: ["copied", "trimmed", "repaired"] }],

  describe: (rule) =>
    `${rule.collection}.${rule.arrayField}: embeds the ${rule.threshold} newest by ${rule.sortField}; ` +
    `every entry in ${rule.fullSetCollection} (by ${rule.referenceField}, unique ${rule.idField})`,
};
