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
import { BSON, type Document } from "mongodb";
import type { OutlierRule } from "./rule.js";
import { describeValue, printedKey, sequenceNumber } from "../bson/bson-value.js";
import type { Write } from "../plan.js";

/**
 * What placing extras needs of a source's last chunk, not its entries: a chunk may hold
 * MiBs, and one joined to its source may pass the 16 MiB limit (reader.ts).
 */
export interface LastChunk {
  _id: unknown;
  /** The sequence field as stored; undefined when the chunk has none. */
  sequence: unknown;
  /** How many entries it holds; a description of the field when it is not an array. */
  entries: number | string;
  /** Its BSON size in bytes. */
  bytes: number;
  /** The whole chunk when it has no sequence: adopting it rewrites its entries. */
  unnumbered?: Document;
  /**
   * Another chunk of the source holds the same sequence number (an application wrote it):
   * which of the two the index returns last is not defined, so neither takes more extras.
   */
  sequenceShared?: boolean;
}

/**
 * A chunk the sidecar fills stops at this many bytes, well under the 16 MiB document limit:
 * the rest is room for the seed's application, which pushes into a book's first chunk.
 */
export const MAX_CHUNK_BYTES = 8 * 1024 * 1024;

/** `chunk` as placing extras sees it (the reader computes the same on the server). */
export function lastChunkOf(rule: OutlierRule, chunk: Document): LastChunk {
  const entries: unknown = chunk[rule.overflowArrayField];
  const sequence: unknown = chunk[rule.sequenceField];
  return {
    _id: chunk._id,
    sequence,
    entries: Array.isArray(entries) ? entries.length : describeValue(entries),
    bytes: BSON.calculateObjectSize(chunk),
    ...(sequence === undefined ? { unnumbered: chunk } : {}),
  };
}

/** What one more array element costs a document: the value, its type byte, and an index key of up to 7 digits. */
function entryBytes(entry: unknown): number {
  return BSON.calculateObjectSize({ v: entry }) - 5 + 6;
}

/**
 * How many of `entries`, from the first, fit in `count` entries and `bytes`; at least one
 * when `atLeastOne` (a new chunk takes an entry however large: it fits a document alone).
 */
function fitting(entries: readonly unknown[], count: number, bytes: number, atLeastOne: boolean): number {
  let used = 0;
  let taken = 0;
  while (taken < entries.length && taken < count) {
    used += entryBytes(entries[taken]);
    if (used > bytes && !(atLeastOne && taken === 0)) break;
    taken++;
  }
  return taken;
}

export type Placement = { ok: true; writes: Write[] } | { ok: false; reason: string };

interface LastChunkSlot {
  /** Sequence number of the next new chunk. */
  nextSequence: number;
  /** Entries, and bytes of them, the last chunk can still take. */
  room: { count: number; bytes: number };
  /** Writes to the last chunk, given the entries appended to it (none if nothing is). */
  append: (entries: unknown[]) => Write[];
}

function chunkLabel(rule: OutlierRule, chunkId: unknown): string {
  return `${rule.overflowCollection} ${printedKey(chunkId)}`;
}

/** The guard every write to a chunk carries: its _id and the exact size it was read with. */
export function chunkGuard(rule: OutlierRule, chunk: Document): Document {
  const entries = chunk[rule.overflowArrayField] as unknown[];
  return sizeGuard(rule, chunk._id, entries.length);
}

function sizeGuard(rule: OutlierRule, chunkId: unknown, size: number): Document {
  return { _id: chunkId, [rule.overflowArrayField]: { $size: size } };
}

export function overflowEntriesProblem(rule: OutlierRule, chunk: Document): string | null {
  const entries: unknown = chunk[rule.overflowArrayField];
  if (Array.isArray(entries)) return null;
  return `${chunkLabel(rule, chunk._id)}: ${rule.overflowArrayField} is ${describeValue(entries)}, expected an array`;
}

function lastChunkSlot(rule: OutlierRule, lastChunk: LastChunk | null): LastChunkSlot | string {
  if (lastChunk === null) return { nextSequence: 0, room: { count: 0, bytes: 0 }, append: () => [] };
  const { entries: size, sequence: stored } = lastChunk;
  if (typeof size === "string")
    return `${chunkLabel(rule, lastChunk._id)}: ${rule.overflowArrayField} is ${size}, expected an array`;
  const adopt = stored === undefined;
  const sequence = sequenceNumber(stored);
  if (!adopt && sequence === undefined) {
    return `${chunkLabel(rule, lastChunk._id)}: ${rule.sequenceField} is ${describeValue(stored)}, expected an integer from 0`;
  }
  return {
    nextSequence: sequence === undefined ? 1 : sequence + 1,
    // Extras go to a new chunk numbered after both chunks that share the last number,
    // whichever of them the read returned, so that they sort after both.
    room: lastChunk.sequenceShared
      ? { count: 0, bytes: 0 }
      : { count: Math.max(0, rule.chunkSize - size), bytes: Math.max(0, MAX_CHUNK_BYTES - lastChunk.bytes) },
    append: (entries) => {
      if (entries.length === 0 && !adopt) return [];
      const filter = sizeGuard(rule, lastChunk._id, size);
      const update: Document = { $push: { [rule.overflowArrayField]: { $each: entries } } };
      if (adopt) {
        filter[rule.sequenceField] = { $exists: false };
        update.$set = { [rule.sequenceField]: 0 };
      }
      return [{ op: "updateOne", collection: rule.overflowCollection, filter, update }];
    },
  };
}

/** A new overflow chunk of `sourceId` holding `entries`. */
export function newChunk(rule: OutlierRule, sourceId: unknown, sequence: number, entries: unknown[]): Write {
  return {
    op: "insertOne",
    collection: rule.overflowCollection,
    document: newChunkDocument(rule, sourceId, sequence, entries),
  };
}

function newChunkDocument(
  rule: OutlierRule,
  sourceId: unknown,
  sequence: number,
  entries: unknown[],
): Document {
  return {
    _id: { [rule.referenceField]: sourceId, [rule.sequenceField]: sequence },
    [rule.referenceField]: sourceId,
    [rule.sequenceField]: sequence,
    [rule.overflowArrayField]: entries,
  };
}

/**
 * New chunks numbered from `firstSequence` holding `extras` in order, each at most chunkSize
 * entries and MAX_CHUNK_BYTES (but for a single larger entry).
 */
export function chunksFrom(
  rule: OutlierRule,
  sourceId: unknown,
  firstSequence: number,
  extras: readonly unknown[],
): Write[] {
  const budget =
    MAX_CHUNK_BYTES - BSON.calculateObjectSize(newChunkDocument(rule, sourceId, firstSequence, []));
  const chunks: Write[] = [];
  for (let start = 0; start < extras.length;) {
    const taken = fitting(extras.slice(start), rule.chunkSize, budget, true);
    chunks.push(newChunk(rule, sourceId, firstSequence + chunks.length, extras.slice(start, start + taken)));
    start += taken;
  }
  return chunks;
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
  lastChunk: LastChunk | null,
  extras: readonly unknown[],
  olderThanUnnumbered = false,
): Placement {
  const slot = lastChunkSlot(rule, lastChunk);
  if (typeof slot === "string") return { ok: false, reason: slot };
  if (olderThanUnnumbered && lastChunk?.unnumbered) {
    return { ok: true, writes: prependToUnnumbered(rule, sourceId, lastChunk.unnumbered, extras) };
  }
  const room = fitting(extras, slot.room.count, slot.room.bytes, false);
  const appended = extras.slice(0, room);
  const created = chunksFrom(rule, sourceId, slot.nextSequence, extras.slice(room));
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
  const { [rule.overflowArrayField]: _, ...rest } = chunk;
  const kept = fitting(entries, rule.chunkSize, MAX_CHUNK_BYTES - BSON.calculateObjectSize(rest) - 16, true);
  const adopt: Write = {
    op: "updateOne",
    collection: rule.overflowCollection,
    filter: { ...chunkGuard(rule, chunk), [rule.sequenceField]: { $exists: false } },
    update: {
      $set: { [rule.overflowArrayField]: entries.slice(0, kept), [rule.sequenceField]: 0 },
    },
  };
  return [adopt, ...chunksFrom(rule, sourceId, 1, entries.slice(kept))];
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
  lastNumbered: LastChunk,
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
