// Reads what the outlier planners plan from. With a session, inside the correction's
// transaction, so that the plan and its writes see one snapshot.
import type { Db, Document } from "mongodb";
import { numberValue, RAW, sameBsonValue, verbatim } from "../bson/bson-value.js";
import { readOneAdmitted } from "../reads/admitted-read.js";
import { readJoinedSources } from "../reads/joined-sources.js";
import type { ReadContext } from "../driver.js";
import { referringTo } from "../reads/reference-filter.js";
import { lastChunkOf, type LastChunk } from "./overflow-chunks.js";
import type { OutlierRule } from "./rule.js";
import type { OverflowChunkState, OutlierState } from "./planner.js";

/**
 * What placing extras needs of a chunk, computed on the server: never its entries, which may
 * be MiBs, and which joined to a source may pass the 16 MiB limit. `entries` is null when
 * the field is not an array (the chunk is then read whole, for the reason it is skipped).
 */
function lastChunkProjection(rule: OutlierRule): Document {
  const entries = `$${rule.overflowArrayField}`;
  return {
    _id: 1,
    sequence: `$${rule.sequenceField}`,
    entries: { $cond: [{ $isArray: entries }, { $size: entries }, null] },
    bytes: { $bsonSize: "$$ROOT" },
  };
}

/**
 * The last chunk as the server projected it, the last two in sequence order; a chunk without
 * a sequence or an entries array is read whole.
 */
async function completed(
  db: Db,
  rule: OutlierRule,
  [projected, before]: readonly Document[],
  reads: ReadContext,
): Promise<LastChunk | null> {
  if (projected === undefined) return null;
  const sequenceShared =
    projected.sequence !== undefined &&
    before?.sequence !== undefined &&
    sameBsonValue(before.sequence, projected.sequence);
  const entries = numberValue(projected.entries);
  if (projected.sequence !== undefined && entries !== undefined)
    return {
      _id: projected._id,
      sequence: projected.sequence,
      entries,
      bytes: numberValue(projected.bytes)!,
      ...(sequenceShared ? { sequenceShared } : {}),
    };
  const whole = await readOneAdmitted(db.collection(rule.overflowCollection), projected._id, reads);
  return whole && { ...lastChunkOf(rule, whole), ...(sequenceShared ? { sequenceShared } : {}) };
}

/**
 * The overflow document of `sourceId` with the highest sequence number: where extras go next,
 * unless the one before shares its number (completed). The sort is the index {reference: 1,
 * sequence: 1} read backwards (two keys examined): a tiebreak on _id, which the index lacks,
 * would fetch and sort every chunk of the source.
 */
async function readLastChunk(
  db: Db,
  rule: OutlierRule,
  sourceId: unknown,
  reads: ReadContext,
): Promise<LastChunk | null> {
  const { session } = reads;
  const lastTwo = await db
    .collection(rule.overflowCollection)
    .aggregate(
      [
        { $match: referringTo(rule.referenceField, sourceId) },
        { $sort: lastChunkFirst(rule) },
        { $limit: 2 },
        { $project: lastChunkProjection(rule) },
      ],
      { session, ...RAW },
    )
    .map(verbatim)
    .toArray();
  return completed(db, rule, lastTwo, reads);
}

function lastChunkFirst(rule: OutlierRule): Document {
  return { [rule.sequenceField]: -1 };
}

// Where the $lookup puts a source's last two chunks; taken off the source before it is planned.
const LAST_CHUNK = "__patternSidecarLastChunk";

/**
 * The states of several sources in one command: the sources by `_id`, each with its last
 * chunk joined by a $lookup whose equality on the reference field and sort by sequence the
 * index answers (two keys per source, as readLastChunk). In the order of `sourceIds`; null for
 * a source that does not exist.
 */
export async function readOutlierStates(
  db: Db,
  rule: OutlierRule,
  sourceIds: readonly unknown[],
  reads: ReadContext = {},
): Promise<(OutlierState | null)[]> {
  const lastChunk = {
    from: rule.overflowCollection,
    localField: "_id",
    foreignField: rule.referenceField,
    pipeline: [{ $sort: lastChunkFirst(rule) }, { $limit: 2 }, { $project: lastChunkProjection(rule) }],
    as: LAST_CHUNK,
  };
  const found = await readJoinedSources(db, rule.collection, sourceIds, lastChunk, reads);
  return Promise.all(
    found.map(async (joined, i) => {
      if (!joined) return null;
      const id = sourceIds[i];
      const { [LAST_CHUNK]: chunks, ...source } = joined;
      // The join's equality with a null _id also takes chunks that lack the reference field.
      if (id === null) return { source, lastChunk: await readLastChunk(db, rule, id, reads) };
      return { source, lastChunk: await completed(db, rule, chunks as Document[], reads) };
    }),
  );
}

export async function readOverflowChunkState(
  db: Db,
  rule: OutlierRule,
  chunkId: unknown,
  reads: ReadContext = {},
): Promise<OverflowChunkState | null> {
  const chunk = await readOneAdmitted(db.collection(rule.overflowCollection), chunkId, reads);
  if (!chunk) return null;
  const sourceId: unknown = chunk[rule.referenceField];
  const lastChunk = await readLastChunk(db, rule, sourceId, reads);
  const state: OverflowChunkState = { chunk, lastChunk: lastChunk ?? lastChunkOf(rule, chunk) };
  // A chunk without a sequence is planned with its source's extras (planner.ts).
  if (chunk[rule.sequenceField] === undefined && sourceId !== undefined && sourceId !== null) {
    state.source = await readOneAdmitted(db.collection(rule.collection), sourceId, reads);
  }
  return state;
}
