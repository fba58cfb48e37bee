// The states the planners plan from, read from a MemoryDb with the selections and sort
// orders the planners' contracts ask of src/stream/readers. In detail:
// - outlier: the last chunk is the highest seq (missing sorts first), as in production;
//   ties on seq go to the last inserted, as a backward scan of {book_id: 1, seq: 1} gives them,
//   and are told (sequenceShared) as the reader tells them from the last two.
// - subset: the newest entries are ranked by sortField then idField, descending, as
//   src/patterns/subset.ts requires and production sorts (ties by _id would hide reviews).
import type { Document } from "mongodb";
import type { BucketRule } from "../../../../src/patterns/bucket/rule.js";
import type { OutlierRule } from "../../../../src/patterns/outlier/rule.js";
import type { SubsetRule } from "../../../../src/patterns/subset/rule.js";
import { splitBaseIds, type BucketState } from "../../../../src/patterns/bucket/planner.js";
import type { OutlierState, OverflowChunkState } from "../../../../src/patterns/outlier/planner.js";
import { lastChunkOf, type LastChunk } from "../../../../src/patterns/outlier/overflow-chunks.js";
import type { SubsetState } from "../../../../src/patterns/subset/planner.js";
import { ledgeredCopies } from "../../../../src/patterns/subset/copy-ledger.js";
import { matches, valueKey, type MemoryDb } from "./memory-db.js";

// MongoDB sorts a missing field as null, before every number.
function sequenceOf(rule: OutlierRule, chunk: Document): number {
  const sequence: unknown = chunk[rule.sequenceField];
  return typeof sequence === "number" ? sequence : -Infinity;
}

/** The chunks of one source in the order `{ seq: 1 }` returns them (ties: insertion order). */
export function chunksInOrder(db: MemoryDb, rule: OutlierRule, sourceId: unknown): Document[] {
  return db
    .find(rule.overflowCollection, (doc) => matches(doc, { [rule.referenceField]: sourceId }))
    .sort((a, b) => sequenceOf(rule, a) - sequenceOf(rule, b));
}

/** The last of `chunks` (in seq order) as the reader hands it over. */
function lastOf(rule: OutlierRule, chunks: Document[]): LastChunk | null {
  const [before, last] = chunks.length > 1 ? chunks.slice(-2) : [undefined, chunks[0]];
  if (!last) return null;
  const sequence: unknown = last[rule.sequenceField];
  const shared = before !== undefined && sequence !== undefined && before[rule.sequenceField] === sequence;
  return { ...lastChunkOf(rule, last), ...(shared ? { sequenceShared: true } : {}) };
}

export function readOutlierState(db: MemoryDb, rule: OutlierRule, sourceId: unknown): OutlierState {
  const [source] = db.find(rule.collection, (doc) => matches(doc, { _id: sourceId }));
  if (!source) throw new Error(`no source ${String(sourceId)}`);
  return { source, lastChunk: lastOf(rule, chunksInOrder(db, rule, sourceId)) };
}

export function readOverflowChunkState(db: MemoryDb, rule: OutlierRule, chunk: Document): OverflowChunkState {
  const sourceId: unknown = chunk[rule.referenceField];
  const lastChunk = lastOf(rule, chunksInOrder(db, rule, sourceId)) ?? lastChunkOf(rule, chunk);
  if (chunk[rule.sequenceField] !== undefined) return { chunk, lastChunk };
  const [source] = db.find(rule.collection, (doc) => matches(doc, { _id: sourceId }));
  return { chunk, lastChunk, source: source ?? null };
}

const SUFFIXED = /_\d{6}$/;

/** What src/patterns/bucket/reader.ts reads: the split's taken bases and their largest suffix. */
export function readBucketState(db: MemoryDb, rule: BucketRule, bucketId: string): BucketState {
  const [bucket] = db.find(rule.collection, (doc) => doc._id === bucketId);
  if (!bucket) throw new Error(`no bucket ${bucketId}`);
  const takenIds = new Set<string>();
  for (const base of splitBaseIds(rule, bucket)) {
    if (db.find(rule.collection, (doc) => doc._id === base).length === 0) continue;
    const suffixed = db
      .find(
        rule.collection,
        (doc) => typeof doc._id === "string" && SUFFIXED.test(doc._id) && doc._id.startsWith(`${base}_`),
      )
      .map((doc) => doc._id as string)
      .sort();
    for (const id of [base, ...suffixed.slice(-1)]) takenIds.add(id);
  }
  return { bucket, takenIds };
}

function dateOf(rule: SubsetRule, doc: Document): number {
  const date: unknown = doc[rule.sortField];
  return date instanceof Date ? date.getTime() : -Infinity;
}

// `sort({ [sortField]: -1, [idField]: -1 })`: the planner's own ranking, ties included (the
// tests' ids are numbers or strings of one type).
export function newestFirst(rule: SubsetRule): (a: Document, b: Document) => number {
  return (a, b) => {
    const byDate = dateOf(rule, b) - dateOf(rule, a);
    if (byDate !== 0) return byDate;
    const [idA, idB] = [a[rule.idField] as number | string, b[rule.idField] as number | string];
    return idA < idB ? 1 : idA > idB ? -1 : 0;
  };
}

export function readSubsetState(
  db: MemoryDb,
  rule: SubsetRule,
  sourceId: unknown,
  newestCount = rule.threshold,
): SubsetState {
  const [source] = db.find(rule.collection, (doc) => matches(doc, { _id: sourceId }));
  if (!source) throw new Error(`no source ${String(sourceId)}`);
  const entries: unknown = source[rule.arrayField];
  const embeddedIds = new Set(
    (Array.isArray(entries) ? (entries as Document[]) : []).map((entry) =>
      JSON.stringify(entry[rule.idField]),
    ),
  );
  const all = db.find(rule.fullSetCollection, (doc) => matches(doc, { [rule.referenceField]: sourceId }));
  const newest = [...all].sort(newestFirst(rule)).slice(0, newestCount);
  const embedded = all.filter((doc) => embeddedIds.has(JSON.stringify(doc[rule.idField])));
  return { source, fullSet: [...new Set([...embedded, ...newest])] };
}

/** What src/patterns/subset/reader.ts reads for a propagated delete: one more newest, the holder, its ledger record. */
export function readDeletionState(
  db: MemoryDb,
  rule: SubsetRule,
  sourceId: unknown,
  entryId: unknown,
  stateCollection: string,
): SubsetState {
  const state = readSubsetState(db, rule, sourceId, rule.threshold + 1);
  const [holder] = db.find(rule.fullSetCollection, (doc) =>
    matches(doc, { [rule.referenceField]: sourceId, [rule.idField]: entryId }),
  );
  const copies =
    holder === undefined
      ? []
      : ledgeredCopies(db.find(stateCollection)).filter(
          ({ copied, rule: name }) => name === rule.name && valueKey(copied) === valueKey(holder._id),
        );
  const fullSet =
    holder && !state.fullSet.some((doc) => matches(doc, { _id: holder._id }))
      ? [...state.fullSet, holder]
      : state.fullSet;
  return { ...state, fullSet, deleted: { entryId, copies } };
}
