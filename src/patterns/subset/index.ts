// The subset pattern's driver: the source embeds the `threshold` newest entries of its full
// set; entries pushed into the source are copied to the full set first, entries written to
// the full set enter the source when they are among the newest, and entries deleted from the
// full set leave the source (deleted-entries.ts).
import type { Db } from "mongodb";
import type { CorrectionTarget, PatternDriver, PlanContext } from "../driver.js";
import type { Plan } from "../plan.js";
import { setPastThreshold } from "../events/positions-set.js";
import { deletesFrom, writesMatching, writesTo } from "../events/event-filters.js";
import { distinctReferences, documentsMatching } from "../reads/sweep-queries.js";
import { copyLedgerIndexes, pruneCopyLedger } from "./copy-ledger.js";
import {
  copyLedgerOf,
  deletedEntryTargets,
  noPreImage,
  preImageFields,
  preImageOptions,
  requestOf,
} from "./deleted-entries.js";
import { subsetEventNeedsCorrection, subsetNeedsCorrection } from "./filters.js";
import { planSubset } from "./planner.js";
import { readSubsetStates, type SubsetRequest } from "./reader.js";
import { subsetRuleSchema, type SubsetRule } from "./rule.js";
import { DELETED_ENTRY, ENTRY, MOVED_ENTRY, SOURCE, sourceTarget } from "./targets.js";
import { formerSources, mayHaveMovedUnseen, mergedPlan, movedEntryTarget } from "./moved-entries.js";
import { movedAway, sourceOfEntry, targetsOfFullSetEntry } from "./entry-references.js";

/**
 * Plans the corrections of several sources from reads that serve them all (readSubsetStates);
 * a delete without a pre-image the copy ledger does not know is only reported.
 */
async function planSources(
  db: Db,
  rule: SubsetRule,
  targets: readonly CorrectionTarget<SubsetRule>[],
  context: PlanContext,
): Promise<Plan[]> {
  // One after another: they share the transaction's session.
  const requests: (SubsetRequest | undefined)[] = [];
  for (const target of targets) {
    const request = await requestOf(db, target, context);
    requests.push(request && target.unsettled ? { ...request, unsettled: true } : request);
  }
  const states = await readSubsetStates(
    db,
    rule,
    requests.flatMap((request) => request ?? []),
    context,
  );
  const ledger = copyLedgerOf(rule, context);
  let next = 0;
  return targets.map((target, i) => {
    if (!requests[i]) return noPreImage(rule, target.id);
    const state = states[next++];
    return state ? planSubset(rule, state, ledger, target.unsettled) : { outcome: "none" };
  });
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

    // An update of a full-set entry names its source in what it set, or in its pre-image
    // (entry-references.ts); without pre-images, only in the entry itself.
    needsUpdateLookup: (rule) => !rule.propagateDeletes,

    updatedFields: (rule) => (rule.propagateDeletes ? [rule.referenceField] : []),

    projectedFields: (rule) => [rule.referenceField],

    preImageFields,

    targetsOf(rule, write) {
      if (write.collection === rule.collection) return [sourceTarget(rule, write.id)];
      if (write.collection !== rule.fullSetCollection) return [];
      if (write.operationType === "delete")
        return rule.propagateDeletes ? deletedEntryTargets(rule, write) : [];
      const targets = targetsOfFullSetEntry(rule, write);
      // An entry moved to another source (its reference changed) left the one it was under: to
      // that source, it is deleted, or its next correction would copy it back from its array.
      if (movedAway(rule, write)) return [...targets, ...deletedEntryTargets(rule, write)];
      // Without a pre-image, the sources still embedding it are looked for.
      return mayHaveMovedUnseen(rule, write) ? [...targets, movedEntryTarget(rule, write)] : targets;
    },

    positionFields: (rule) => [rule.arrayField],

    // A write to the full set names the entry, and its source where the event shows it.
    eventPartitionKeys: (rule, collection) =>
      collection === rule.fullSetCollection
        ? [
            "$documentKey._id",
            ...["fullDocument", "updateDescription.updatedFields", "fullDocumentBeforeChange"].map(
              (image) => `$${image}.${rule.referenceField}`,
            ),
          ]
        : ["$documentKey._id"],

    // An update that set an embedded entry past the threshold left the source too full.
    eventShowsBroken: (rule, write, target) =>
      target.role === SOURCE &&
      write.collection === rule.collection &&
      setPastThreshold(write.positionsSet, rule.arrayField, rule.threshold),
  },

  planning: {
    // A source's correction, plain or propagating a delete, reads and writes that source, the
    // full-set documents that refer to it and the ledger records of its copies (new `_id`s).
    independentTargets: (_rule, role) => role === SOURCE || role === DELETED_ENTRY,

    async plan(db, target, context) {
      if (target.role === MOVED_ENTRY) {
        const formerly = await formerSources(db, target.rule, target.id, context);
        return mergedPlan(formerly.length > 0 ? await planSources(db, target.rule, formerly, context) : []);
      }
      const source =
        target.role === ENTRY ? await sourceOfEntry(db, target.rule, target.id, context.session) : target;
      if (!source) return { outcome: "none" };
      const { unsettled } = target;
      const [plan] = await planSources(db, target.rule, [{ ...source, unsettled }], context);
      return plan!;
    },

    planMany: planSources,

    // A propagated delete's preview reads what its transaction reads again (the source, the
    // entry's holder): for a delete of an embedded entry, 2 reads of 6; one not embedded
    // costs a commit more without it (3 commands, not 2). Embedded is worth betting on when
    // more than a third are.
    needsPreview: (_rule, target) => target.role !== DELETED_ENTRY,

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
