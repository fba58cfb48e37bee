// Outlier pattern: a source array past `threshold` keeps its first `threshold` entries; the
// rest moves, in order, to overflow chunks `{ ref, seq, entries }` read in `seq` order.
//
// - Everything the sidecar moves goes after every extra the source already has (appended
//   to the last chunk, then new chunks), so a naive application that pushes to the source
//   again after `has_extras` is set has its excess moved again, after the existing extras.
// - An application following the seed pushes to `extra_sales` with `updateOne({book_id},
//   ...)`, which lands in the first chunk the `{book_id, seq}` index returns (the lowest
//   seq, or a chunk without seq: missing sorts first). The sidecar fills a chunk to
//   chunkSize before opening the next, so that first chunk is full whenever another exists,
//   and such a push overfills it; the split then moves the excess after the last chunk,
//   which is after every earlier extra. Arrival order thus holds for app-written extras too,
//   except for pushes that land in a chunk an application emptied or created itself.
// - A chunk without `seq` (the seed's upsert) is adopted as chunk 0, and what the source
//   holds past the threshold goes before its entries: the seed's application sets the flag
//   with its last push to the source and only then writes extra_sales (overflow-chunks.ts).
//   Such a chunk found beside numbered ones (the seed's upsert raced a move that created
//   chunk 0) goes after them and is deleted; the insert of a chunk without `seq` is itself
//   an event to correct, so neither write can commit unseen by the other (planUnnumberedChunk).
// - Guards: the source by `_id` + exact array size; chunks by `_id` + exact size; new
//   chunks by their deterministic `_id`.
import type { Document } from "mongodb";
import type { OutlierRule } from "./rule.js";
import { keepFirst } from "../arrays/array-trim.js";
import { describeValue, sameBsonValue, sequenceNumber } from "../bson/bson-value.js";
import { extended } from "../bson/extended.js";
import { referringTo } from "../reads/reference-filter.js";
import {
  chunkGuard,
  chunksFrom,
  mergeUnnumbered,
  overflowEntriesProblem,
  type LastChunk,
  placeExtras,
  prependToUnnumbered,
} from "./overflow-chunks.js";
import type { Plan, Write } from "../plan.js";

export interface OutlierState {
  source: Document;
  /** The overflow document of this source with the highest sequenceField (null if none). */
  lastChunk: LastChunk | null;
}

export interface OverflowChunkState {
  /** An overflow document an application overfilled, or one without a sequence. */
  chunk: Document;
  /** The overflow document of the same source with the highest sequenceField (may be `chunk`). */
  lastChunk: LastChunk;
  /** For a chunk without a sequence: its source document (null when it has none). */
  source?: Document | null;
}

const NONE: Plan = { outcome: "none" };

/** What the source holds past the threshold, and the write that trims it and sets the flag. */
type SourceExcess = { extras: unknown[]; trim: Write[] } | { reason: string };

function sourceExcess(rule: OutlierRule, source: Document | null): SourceExcess {
  const entries: unknown = source?.[rule.arrayField];
  if (source === null || entries === undefined) return { extras: [], trim: [] };
  if (!Array.isArray(entries)) {
    return { reason: `${rule.arrayField} is ${describeValue(entries)}, expected an array` };
  }
  if (entries.length <= rule.threshold) return { extras: [], trim: [] };
  return { extras: entries.slice(rule.threshold), trim: [trimSource(rule, source._id, entries.length)] };
}

/** Keeps the source's first `threshold` entries and sets its flag; guarded by its exact size. */
function trimSource(rule: OutlierRule, sourceId: unknown, size: number, guard: Document = {}): Write {
  return {
    op: "updateOne",
    collection: rule.collection,
    filter: { _id: sourceId, [rule.arrayField]: { $size: size }, ...guard },
    update: keepFirst(rule.arrayField, rule.threshold, { [rule.flagField]: true }),
  };
}

export function planOutlierMove(rule: OutlierRule, state: OutlierState): Plan {
  const excess = sourceExcess(rule, state.source);
  if ("reason" in excess) return { outcome: "skip", reason: excess.reason };
  if (excess.extras.length === 0) return NONE;
  const placement = placeExtras(rule, state.source._id, state.lastChunk, excess.extras, true);
  if (!placement.ok) return { outcome: "skip", reason: placement.reason };
  return moved([...excess.trim, ...placement.writes], excess.extras.length);
}

/**
 * The move of `appended`, the entries an update event showed set at the threshold's position
 * and on (a push past the threshold), planned without reading: what planOutlierMove plans for
 * a source holding exactly threshold + appended entries and no overflow chunk. It holds only
 * if the source still ends with those very entries and no chunk of it exists; the trim's
 * guard and `absent` check both in the transaction, which is otherwise undone and planned
 * again from a read.
 */
export function planAppendedMove(rule: OutlierRule, sourceId: unknown, appended: readonly unknown[]): Plan {
  const extras = [...appended];
  // Behind $isArray: $slice of anything else fails the whole write.
  const entries = { $cond: [{ $isArray: `$${rule.arrayField}` }, `$${rule.arrayField}`, []] };
  const sameExtras = {
    $expr: { $eq: [{ $slice: [entries, rule.threshold, extras.length] }, { $literal: extras }] },
  };
  const trim = trimSource(rule, sourceId, rule.threshold + extras.length, sameExtras);
  return extended(moved([trim, ...chunksFrom(rule, sourceId, 0, extras)], extras.length), {
    absent: [{ collection: rule.overflowCollection, filter: referringTo(rule.referenceField, sourceId) }],
  });
}

function moved(writes: Write[], elementsMoved: number): Extract<Plan, { outcome: "writes" }> {
  return { outcome: "writes", kind: "moved", writes, elementsMoved };
}

/**
 * A chunk without a sequence: beside numbered chunks it goes after them (mergeUnnumbered);
 * as the book's only chunk it is adopted as chunk 0 once the source has extras to put before
 * it, or once it is overfilled. Either way the source's own extras move in the same
 * transaction, so that this correction and a move of the same source write the source
 * document both and cannot both commit from snapshots that miss each other.
 */
function planUnnumberedChunk(rule: OutlierRule, state: OverflowChunkState, sourceId: unknown): Plan {
  const { chunk, lastChunk } = state;
  const excess = sourceExcess(rule, state.source ?? null);
  if ("reason" in excess) return { outcome: "skip", reason: excess.reason };
  const size = (chunk[rule.overflowArrayField] as unknown[]).length;
  if (lastChunk.sequence !== undefined) {
    const placement = mergeUnnumbered(rule, sourceId, chunk, lastChunk, excess.extras);
    if (!placement.ok) return { outcome: "skip", reason: placement.reason };
    return moved([...excess.trim, ...placement.writes], excess.extras.length + size);
  }
  if (excess.extras.length > 0) {
    return moved(
      [...excess.trim, ...prependToUnnumbered(rule, sourceId, chunk, excess.extras)],
      excess.extras.length,
    );
  }
  if (size <= rule.chunkSize) return NONE;
  const writes = prependToUnnumbered(rule, sourceId, chunk, []);
  return { outcome: "writes", kind: "split", writes, elementsMoved: size - rule.chunkSize };
}

export function planOverflowChunkSplit(rule: OutlierRule, state: OverflowChunkState): Plan {
  const { chunk, lastChunk } = state;
  const problem = overflowEntriesProblem(rule, chunk) ?? sequenceProblem(rule, chunk);
  if (problem !== null) return { outcome: "skip", reason: problem };
  const entries = chunk[rule.overflowArrayField] as unknown[];
  const sourceId: unknown = chunk[rule.referenceField];
  const hasSource = sourceId !== undefined && sourceId !== null;
  if (hasSource && chunk[rule.sequenceField] === undefined) return planUnnumberedChunk(rule, state, sourceId);
  if (entries.length <= rule.chunkSize) return NONE;
  if (!hasSource) {
    return {
      outcome: "skip",
      reason: `${rule.overflowCollection} document: ${rule.referenceField} is ${describeValue(sourceId)}`,
    };
  }
  const excess = entries.slice(rule.chunkSize);
  const isLast = sameBsonValue(chunk._id, lastChunk._id);
  const trim: Write = {
    op: "updateOne",
    collection: rule.overflowCollection,
    filter: chunkGuard(rule, chunk),
    update: keepFirst(rule.overflowArrayField, rule.chunkSize),
  };
  const rest = isLast
    ? {
        ok: true as const,
        writes: chunksFrom(rule, sourceId, sequenceNumber(chunk[rule.sequenceField])! + 1, excess),
      }
    : placeExtras(rule, sourceId, lastChunk, excess);
  if (!rest.ok) return { outcome: "skip", reason: rest.reason };
  return { outcome: "writes", kind: "split", writes: [trim, ...rest.writes], elementsMoved: excess.length };
}

function sequenceProblem(rule: OutlierRule, chunk: Document): string | null {
  const sequence: unknown = chunk[rule.sequenceField];
  if (sequence === undefined || sequenceNumber(sequence) !== undefined) return null;
  return `${rule.overflowCollection} document: ${rule.sequenceField} is ${describeValue(sequence)}, expected an integer from 0`;
}
