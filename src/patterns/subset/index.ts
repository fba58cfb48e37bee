// The subset pattern's driver: the source embeds the `threshold` newest entries of its full
// set; entries pushed into the source are copied to the full set first, entries written to
// the full set enter the source when they are among the newest, and entries deleted from the
// full set leave the source (deleted-entries.ts).
import type { Document } from "mongodb";
import type { PatternDriver, WatchedWrite } from "../driver.js";
import { sameBsonValue } from "../common/bson-value.js";
import { deletesFrom, writesMatching, writesTo } from "../common/event-filters.js";
import { distinctReferences, documentsMatching } from "../common/sweep-queries.js";
import { copyLedgerIndexes, pruneCopyLedger } from "./copy-ledger.js";
import {
  copyLedgerOf,
  deletedEntryTargets,
  planDeletedEntry,
  preImageFields,
  preImageOptions,
} from "./deleted-entries.js";
import { subsetEventNeedsCorrection, subsetNeedsCorrection } from "./filters.js";
import { planSubset } from "./planner.js";
import { readSubsetState } from "./reader.js";
import { subsetRuleSchema, type SubsetRule } from "./rule.js";
import { SOURCE, sourceTarget } from "./targets.js";

// A review written straight into the full set concerns its product: the correction starts
// from the product, so it shares the product's ordering key with pushes to the product.
function targetsOfFullSetEntry(rule: SubsetRule, fullDocument: Document | undefined) {
  const sourceId: unknown = fullDocument?.[rule.referenceField];
  return sourceId === undefined || sourceId === null ? [] : [sourceTarget(rule, sourceId)];
}

/** Whether an update of a full-set entry changed its reference, as the pre-image shows. */
function movedAway(rule: SubsetRule, write: WatchedWrite): boolean {
  const before = write.fullDocumentBeforeChange;
  if (!rule.propagateDeletes || !before || !(rule.referenceField in before)) return false;
  return !sameBsonValue(before[rule.referenceField], write.fullDocument?.[rule.referenceField]);
}

export const subsetDriver: PatternDriver<SubsetRule> = {
  pattern: "subset",
  ruleSchema: subsetRuleSchema,
  ownedCollectionKeys: ["fullSetCollection"],

  stream: {
    watchedCollections: (rule) => [rule.collection, rule.fullSetCollection],

    eventFilters: (rule) => [
      writesMatching(rule.collection, subsetEventNeedsCorrection(rule)),
      // Any entry written to the full set may belong among the newest embedded ones; which it
      // does depends on the source, so the correction decides (a no-op when it does not).
      writesTo(rule.fullSetCollection),
      ...(rule.propagateDeletes ? [deletesFrom(rule.fullSetCollection)] : []),
    ],

    // The one lookup the stream still needs: an update of a full-set entry names its product
    // only in the entry itself (targetsOfFullSetEntry), unless the update changed that field.
    needsUpdateLookup: () => true,

    projectedFields: (rule) => [rule.referenceField],

    preImageFields,

    targetsOf(rule, write) {
      if (write.collection === rule.collection) return [sourceTarget(rule, write.id)];
      if (write.collection !== rule.fullSetCollection) return [];
      if (write.operationType === "delete")
        return rule.propagateDeletes ? deletedEntryTargets(rule, write) : [];
      const targets = targetsOfFullSetEntry(rule, write.fullDocument);
      // An entry moved to another source (its reference changed) left the one it was under: to
      // that source, it is deleted, or its next correction would copy it back from its array.
      return movedAway(rule, write) ? [...targets, ...deletedEntryTargets(rule, write)] : targets;
    },
  },

  planning: {
    async plan(db, target, context) {
      if (target.role !== SOURCE) return planDeletedEntry(db, target, context);
      const state = await readSubsetState(db, target.rule, target.id, context.session);
      return state ? planSubset(target.rule, state, copyLedgerOf(target.rule, context)) : { outcome: "none" };
    },

    // A review an application pushes and then inserts into the full set itself: copied first,
    // its insert would fail on the unique index (docs/semantics.md, "Copies and applications").
    settleMs: (rule) => rule.settleMs,
  },

  collections: {
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

    collectionOptions: preImageOptions,
  },

  stateRecords: { name: "copy ledger", indexes: copyLedgerIndexes, prune: pruneCopyLedger },

  sweepSources: (rule) => [
    documentsMatching("source", rule.collection, subsetNeedsCorrection(rule), (id) => sourceTarget(rule, id)),
    // A review written straight into the full set while no stream watched leaves no trace
    // on its product: every product with entries in the full set is a candidate, found
    // through the unique index that starts with the reference.
    distinctReferences("full-set", rule.fullSetCollection, rule.referenceField, rule.collection, (id) =>
      sourceTarget(rule, id),
    ),
  ],

  correctionSeries: (rule) => [
    {
      collection: rule.collection,
      kinds: [
        "copied",
        "trimmed",
        "repaired",
        ...(rule.propagateDeletes ? (["deleted", "skipped_no_pre_image"] as const) : []),
      ],
    },
  ],

  describe: (rule) =>
    `${rule.collection}.${rule.arrayField}: embeds the ${rule.threshold} newest by ${rule.sortField}; ` +
    `every entry in ${rule.fullSetCollection} (by ${rule.referenceField}, unique ${rule.idField})` +
    (rule.propagateDeletes ? `; deletes there leave ${rule.arrayField}` : ""),
};
