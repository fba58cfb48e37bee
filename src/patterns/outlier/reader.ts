// Reads what the outlier planners plan from. With a session, inside the correction's
// transaction, so that the plan and its writes see one snapshot.
import type { ClientSession, Db, Document } from "mongodb";
import type { OutlierRule } from "./rule.js";
import type { OverflowChunkState, OutlierState } from "./planner.js";

/** The overflow document of `sourceId` with the highest sequence number: where extras go next.
 * The sort is the index {reference: 1, sequence: 1} read backwards (one key examined): a
 * tiebreak on _id, which the index lacks, would fetch and sort every chunk of the source. */
async function readLastChunk(
  db: Db,
  rule: OutlierRule,
  sourceId: unknown,
  session?: ClientSession,
): Promise<Document | null> {
  const [last] = await db
    .collection(rule.overflowCollection)
    .find({ [rule.referenceField]: sourceId }, { session })
    .sort({ [rule.sequenceField]: -1 })
    .limit(1)
    .toArray();
  return last ?? null;
}

export async function readOutlierState(
  db: Db,
  rule: OutlierRule,
  sourceId: unknown,
  session?: ClientSession,
): Promise<OutlierState | null> {
  const source = await db.collection(rule.collection).findOne({ _id: sourceId as never }, { session });
  if (!source) return null;
  return { source, lastChunk: await readLastChunk(db, rule, source._id, session) };
}

export async function readOverflowChunkState(
  db: Db,
  rule: OutlierRule,
  chunkId: unknown,
  session?: ClientSession,
): Promise<OverflowChunkState | null> {
  const chunk = await db.collection(rule.overflowCollection).findOne({ _id: chunkId as never }, { session });
  if (!chunk) return null;
  const sourceId: unknown = chunk[rule.referenceField];
  const lastChunk = await readLastChunk(db, rule, sourceId, session);
  const state: OverflowChunkState = { chunk, lastChunk: lastChunk ?? chunk };
  // A chunk without a sequence is planned with its source's extras (planner.ts).
  if (chunk[rule.sequenceField] === undefined && sourceId !== undefined && sourceId !== null) {
    state.source = await db.collection(rule.collection).findOne({ _id: sourceId as never }, { session });
  }
  return state;
}
