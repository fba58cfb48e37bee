// The outlier pattern's driver: a source document past `threshold` moves its extras, in
// order, to numbered overflow chunks; an overflow chunk an application overfilled is split,
// one it upserted without a sequence is numbered or put after the numbered ones.
import type { Db, Document } from "mongodb";
import type { PatternDriver, ReadContext } from "../driver.js";
import type { Plan } from "../plan.js";
import { writesMatching } from "../events/event-filters.js";
import { extended } from "../bson/extended.js";
import { documentsMatching } from "../reads/sweep-queries.js";
import {
  chunkEventNeedsCorrection,
  chunkNeedsCorrection,
  outlierEventNeedsCorrection,
  outlierNeedsCorrection,
} from "./filters.js";
import { appendedPastThreshold } from "./appended.js";
import { planAppendedMove, planOutlierMove, planOverflowChunkSplit } from "./planner.js";
import { readOutlierStates, readOverflowChunkState } from "./reader.js";
import { outlierRuleSchema, type OutlierRule } from "./rule.js";

const SOURCE = "source";

const CHUNK = "chunk";

/** The source a chunk `_id` of the sidecar's names (`{ <referenceField>, <sequenceField> }`). */
function sourceInChunkId(rule: OutlierRule, id: unknown): unknown {
  return id !== null && typeof id === "object" && rule.referenceField in id
    ? (id as Record<string, unknown>)[rule.referenceField]
    : undefined;
}

/** sourceInChunkId over a change event: the source its key names, or the key itself. */
function sourceInChunkKey(rule: OutlierRule): Document {
  const named = `$documentKey._id.${rule.referenceField}`;
  return { $cond: [{ $eq: [{ $type: named }, "missing"] }, "$documentKey._id", named] };
}

/** Plans the moves of several sources from one read of them all (readOutlierStates). */
async function planSourceMoves(
  db: Db,
  rule: OutlierRule,
  sourceIds: readonly unknown[],
  reads: ReadContext,
): Promise<Plan[]> {
  const states = await readOutlierStates(db, rule, sourceIds, reads);
  return states.map((state) => (state ? planOutlierMove(rule, state) : { outcome: "none" }));
}

export const outlierDriver: PatternDriver<OutlierRule> = {
  pattern: "outlier",
  ruleSchema: outlierRuleSchema,
  ownedCollectionKeys: ["overflowCollection"],

  stream: {
    watchedCollections: (rule) => [rule.collection, rule.overflowCollection],

    eventFilters: (rule) => [
      writesMatching(rule.collection, outlierEventNeedsCorrection(rule)),
      writesMatching(rule.overflowCollection, chunkEventNeedsCorrection(rule)),
    ],

    needsUpdateLookup: () => false,

    projectedFields: () => [],

    positionFields: (rule) => [rule.arrayField],

    targetsOf(rule, { collection, id, positionsSet }) {
      if (collection === rule.collection) {
        const appended = appendedPastThreshold(rule, positionsSet);
        const target = { rule, role: SOURCE, collection, id };
        return [appended ? extended(target, { shown: { appended } }) : target];
      }
      if (collection === rule.overflowCollection) return [{ rule, role: CHUNK, collection, id }];
      return [];
    },

    // Both filters are exact for the written document: an entry set past the limit, or a
    // whole document (insert, replace) past it, means the document broke the rule then.
    eventShowsBroken: (rule, write, target) =>
      target.collection === write.collection && target.id === write.id,

    // A chunk the sidecar numbered names its source in its `_id`, and shares its partition; one
    // an application created (the seed's upsert, an ObjectId) is its own.
    partitionKey: (rule, { role, id }) => (role === CHUNK ? (sourceInChunkId(rule, id) ?? id) : id),

    eventPartitionKeys: (rule, collection) =>
      collection === rule.overflowCollection ? [sourceInChunkKey(rule)] : ["$documentKey._id"],
  },

  planning: {
    async plan(db, target, context) {
      const { rule, id } = target;
      if (target.role === CHUNK) {
        const state = await readOverflowChunkState(db, rule, id, context);
        return state ? planOverflowChunkSplit(rule, state) : { outcome: "none" };
      }
      const [plan] = await planSourceMoves(db, rule, [id], context);
      return plan!;
    },

    // A source's correction reads and writes that source and its own chunks only; two chunks
    // of one source share the chunks after them.
    independentTargets: (_rule, role) => role === SOURCE,

    planMany: (db, rule, targets, context) =>
      planSourceMoves(
        db,
        rule,
        targets.map((target) => target.id),
        context,
      ),

    // A push onto a full source: no read, provided no chunk of it exists yet (planAppendedMove).
    planFromEvent(rule, { role, id, shown }) {
      const appended: unknown = shown?.appended;
      return role === SOURCE && Array.isArray(appended) ? planAppendedMove(rule, id, appended) : undefined;
    },
  },

  collections: {
    // The seed asks for an index on book_id; with the sequence it also orders the chunks.
    indexes: (rule) => [
      { collection: rule.overflowCollection, keys: { [rule.referenceField]: 1, [rule.sequenceField]: 1 } },
    ],
  },

  sweepSources: (rule) => [
    documentsMatching(SOURCE, rule.collection, outlierNeedsCorrection(rule), (id) => ({
      rule,
      role: SOURCE,
      collection: rule.collection,
      id,
    })),
    documentsMatching(CHUNK, rule.overflowCollection, chunkNeedsCorrection(rule), (id) => ({
      rule,
      role: CHUNK,
      collection: rule.overflowCollection,
      id,
    })),
  ],

  correctionSeries: (rule) => [
    { collection: rule.collection, kinds: ["moved"] },
    { collection: rule.overflowCollection, kinds: ["split"] },
  ],

  describe: (rule) =>
    `${rule.collection}.${rule.arrayField}: more than ${rule.threshold} entries move, in order, to ` +
    `${rule.overflowCollection}.${rule.overflowArrayField} (by ${rule.referenceField}, ordered by ` +
    `${rule.sequenceField}, at most ${rule.chunkSize} per document); ${rule.flagField} marks the source`,
};
