// Where an outlier's extras go: appended, in order, to the last overflow chunk of the source
// up to chunkSize, then into new chunks numbered on from it. Shared by the source move and
// the split of an overfilled chunk.
//
// A chunk without a sequence field is what the seed's `updateOne({book_id}, {$push},
// {upsert: true})` creates when no chunk exists yet. The reader hands it over as the last
// chunk only when no numbered chunk exists; the planner then adopts it as chunk 0 (`$set`
// of the sequence, guarded by its absence), so that it sorts before the chunks that follow.
//
// New chunks get `_id: { <referenceField>: sourceId, <sequenceField>: n }`: (source, n) is
// unique for the life of the data, so a stale or replayed insert fails on the _id index
// instead of duplicating extras, even outside a transaction.
import type { Document } from "mongodb";
import type { OutlierRule } from "./rule.js";
import { describeValue, printedKey, sequenceNumber } from "../common/bson-value.js";
import { inGroupsOf } from "../common/groups.js";
import type { Write } from "../plan.js";

export type Placement = { ok: true; writes: Write[] } | { ok: false; reason: string };

interface LastChunkSlot {
  /** Sequence number of the next new chunk. */
  nextSequence: number;
  /** Entries the last chunk can still take. */
  room: number;
  /** Writes to the last chunk, given the entries appended to it (none if nothing is). */
  append: (entries: unknown[]) => Write[];
}

function chunkLabel(rule: OutlierRule, chunk: Document): string {
  return `${rule.overflowCollection} ${printedKey(chunk._id)}`;
}

/** The guard every write to a chunk carries: its _id and the exact size it was read with. */
export function chunkGuard(rule: OutlierRule, chunk: Document): Document {
  const entries = chunk[rule.overflowArrayField] as unknown[];
  return { _id: chunk._id, [rule.overflowArrayField]: { $size: entries.length } };
}

export function overflowEntriesProblem(rule: OutlierRule, chunk: Document): string | null {
  const entries: unknown = chunk[rule.overflowArrayField];
  if (Array.isArray(entries)) return null;
  return `${chunkLabel(rule, chunk)}: ${rule.overflowArrayField} is ${describeValue(entries)}, expected an array`;
}

function lastChunkSlot(rule: OutlierRule, lastChunk: Document | null): LastChunkSlot | string {
  if (lastChunk === null) return { nextSequence: 0, room: 0, append: () => [] };
  const problem = overflowEntriesProblem(rule, lastChunk);
  if (problem !== null) return problem;
  const stored: unknown = lastChunk[rule.sequenceField];
  const adopt = stored === undefined;
  const sequence = sequenceNumber(stored);
  if (!adopt && sequence === undefined) {
    return `${chunkLabel(rule, lastChunk)}: ${rule.sequenceField} is ${describeValue(stored)}, expected an integer from 0`;
  }
  const size = (lastChunk[rule.overflowArrayField] as unknown[]).length;
  return {
    nextSequence: sequence === undefined ? 1 : sequence + 1,
    room: Math.max(0, rule.chunkSize - size),
    append: (entries) => {
      if (entries.length === 0 && !adopt) return [];
      const filter = chunkGuard(rule, lastChunk);
      const update: Document = { $push: { [rule.overflowArrayField]: { $each: entries } } };
      if (adopt) {
        filter[rule.sequenceField] = { $exists: false };
        update.$set = { [rule.sequenceField]: 0 };
      }
      return [{ op: "updateOne", collection: rule.overflowCollection, filter, update }];
    },
  };
}

/** A new overflow chunk of `sourceId` holding `entries` (at most chunkSize of them). */
export function newChunk(rule: OutlierRule, sourceId: unknown, sequence: number, entries: unknown[]): Write {
  return {
    op: "insertOne",
    collection: rule.overflowCollection,
    document: {
      _id: { [rule.referenceField]: sourceId, [rule.sequenceField]: sequence },
      [rule.referenceField]: sourceId,
      [rule.sequenceField]: sequence,
      [rule.overflowArrayField]: entries,
    },
  };
}

/** New chunks numbered from `firstSequence` holding `extras` in order, chunkSize at most each. */
export function chunksFrom(
  rule: OutlierRule,
  sourceId: unknown,
  firstSequence: number,
  extras: unknown[],
): Write[] {
  return inGroupsOf(extras, rule.chunkSize).map((group, index) =>
    newChunk(rule, sourceId, firstSequence + index, group),
  );
}

/**
 * Writes that put `extras` in order after every extra the source already has, with one
 * exception when `olderThanUnnumbered`: a chunk without a sequence is one the seed's
 * application upserted, and it writes to extra_sales only after setting the flag, that is
 * after its last push to the source; what it left in the source goes before that chunk's
 * entries. The chunk is adopted as chunk 0 and what no longer fits moves to new chunks.
 */
export function placeExtras(
  rule: OutlierRule,
  sourceId: unknown,
  lastChunk: Document | null,
  extras: readonly unknown[],
  olderThanUnnumbered = false,
): Placement {
  const slot = lastChunkSlot(rule, lastChunk);
  if (typeof slot === "string") return { ok: false, reason: slot };
  if (olderThanUnnumbered && lastChunk !== null && lastChunk[rule.sequenceField] === undefined) {
    return { ok: true, writes: prependToUnnumbered(rule, sourceId, lastChunk, extras) };
  }
  const appended = extras.slice(0, slot.room);
  const created = chunksFrom(rule, sourceId, slot.nextSequence, extras.slice(slot.room));
  return { ok: true, writes: [...slot.append(appended), ...created] };
}

/** Adopts a chunk without a sequence as chunk 0, `extras` before its entries; the rest in new chunks. */
export function prependToUnnumbered(
  rule: OutlierRule,
  sourceId: unknown,
  chunk: Document,
  extras: readonly unknown[],
): Write[] {
  const entries = [...extras, ...(chunk[rule.overflowArrayField] as unknown[])];
  const adopt: Write = {
    op: "updateOne",
    collection: rule.overflowCollection,
    filter: { ...chunkGuard(rule, chunk), [rule.sequenceField]: { $exists: false } },
    update: {
      $set: { [rule.overflowArrayField]: entries.slice(0, rule.chunkSize), [rule.sequenceField]: 0 },
    },
  };
  return [adopt, ...chunksFrom(rule, sourceId, 1, entries.slice(rule.chunkSize))];
}

/**
 * Writes that put a chunk without a sequence, found beside numbered chunks, after them:
 * `extras` (what the source holds past the threshold) and then its entries go after the last
 * numbered chunk, and the chunk is deleted. The seed's application upserts such a chunk when
 * its `{book_id}` query finds none, which happens when a correction that read the book just
 * before created chunk 0 beside it (the two writes touch different documents, so neither
 * fails). Its entries were written after the flag was set, hence after everything the source
 * held; left in place it would sort before chunk 0.
 */
export function mergeUnnumbered(
  rule: OutlierRule,
  sourceId: unknown,
  chunk: Document,
  lastNumbered: Document,
  extras: readonly unknown[],
): Placement {
  const entries = chunk[rule.overflowArrayField] as unknown[];
  const placement = placeExtras(rule, sourceId, lastNumbered, [...extras, ...entries]);
  if (!placement.ok) return placement;
  const remove: Write = {
    op: "deleteOne",
    collection: rule.overflowCollection,
    filter: { ...chunkGuard(rule, chunk), [rule.sequenceField]: { $exists: false } },
  };
  return { ok: true, writes: [...placement.writes, remove] };
}
