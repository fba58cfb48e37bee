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
// - Guards: the source by `_id` + exact array size; chunks by `_id` + exact size; new
//   chunks by their deterministic `_id`.
import type { Document } from "mongodb";
import type { OutlierRule } from "./rule.js";
import { describeValue, isSequenceNumber, sameBsonValue } from "../common/bson-value.js";
import { chunkGuard, chunksFrom, overflowEntriesProblem, placeExtras } from "./overflow-chunks.js";
import type { Plan, Write } from "../plan.js";

export interface OutlierState {
  source: Document;
  /** The overflow document of this source with the highest sequenceField (null if none). */
  lastChunk: Document | null;
}

export interface OverflowChunkState {
  /** An overflow document an application overfilled (more than chunkSize entries). */
  chunk: Document;
  /** The overflow document of the same source with the highest sequenceField (may be `chunk`). */
  lastChunk: Document;
}

const NONE: Plan = { outcome: "none" };

export function planOutlierMove(rule: OutlierRule, state: OutlierState): Plan {
  const { source, lastChunk } = state;
  const entries: unknown = source[rule.arrayField];
  if (entries === undefined) return NONE;
  if (!Array.isArray(entries)) {
    return { outcome: "skip", reason: `${rule.arrayField} is ${describeValue(entries)}, expected an array` };
  }
  if (entries.length <= rule.threshold) return NONE;
  const extras = entries.slice(rule.threshold);
  const placement = placeExtras(rule, source._id, lastChunk, extras, true);
  if (!placement.ok) return { outcome: "skip", reason: placement.reason };
  const trimSource: Write = {
    op: "updateOne",
    collection: rule.collection,
    filter: { _id: source._id, [rule.arrayField]: { $size: entries.length } },
    update: { $set: { [rule.arrayField]: entries.slice(0, rule.threshold), [rule.flagField]: true } },
  };
  return {
    outcome: "writes",
    kind: "moved",
    writes: [trimSource, ...placement.writes],
    elementsMoved: extras.length,
  };
}

export function planOverflowChunkSplit(rule: OutlierRule, state: OverflowChunkState): Plan {
  const { chunk, lastChunk } = state;
  const problem = overflowEntriesProblem(rule, chunk) ?? sequenceProblem(rule, chunk);
  if (problem !== null) return { outcome: "skip", reason: problem };
  const entries = chunk[rule.overflowArrayField] as unknown[];
  if (entries.length <= rule.chunkSize) return NONE;
  const sourceId: unknown = chunk[rule.referenceField];
  if (sourceId === undefined || sourceId === null) {
    return {
      outcome: "skip",
      reason: `${rule.overflowCollection} document: ${rule.referenceField} is ${describeValue(sourceId)}`,
    };
  }
  const excess = entries.slice(rule.chunkSize);
  const isLast = sameBsonValue(chunk._id, lastChunk._id);
  const trim = trimChunk(rule, chunk, isLast);
  const rest = isLast
    ? { ok: true as const, writes: chunksFrom(rule, sourceId, nextSequenceAfter(rule, chunk), excess) }
    : placeExtras(rule, sourceId, lastChunk, excess);
  if (!rest.ok) return { outcome: "skip", reason: rest.reason };
  return { outcome: "writes", kind: "split", writes: [trim, ...rest.writes], elementsMoved: excess.length };
}

function sequenceProblem(rule: OutlierRule, chunk: Document): string | null {
  const sequence: unknown = chunk[rule.sequenceField];
  if (sequence === undefined || isSequenceNumber(sequence)) return null;
  return `${rule.overflowCollection} document: ${rule.sequenceField} is ${describeValue(sequence)}, expected an integer from 0`;
}

// A chunk without a sequence that is also the last chunk is adopted as chunk 0 as it is trimmed.
function trimChunk(rule: OutlierRule, chunk: Document, isLast: boolean): Write {
  const entries = chunk[rule.overflowArrayField] as unknown[];
  const filter = chunkGuard(rule, chunk);
  const set: Document = { [rule.overflowArrayField]: entries.slice(0, rule.chunkSize) };
  if (isLast && chunk[rule.sequenceField] === undefined) {
    filter[rule.sequenceField] = { $exists: false };
    set[rule.sequenceField] = 0;
  }
  return { op: "updateOne", collection: rule.overflowCollection, filter, update: { $set: set } };
}

function nextSequenceAfter(rule: OutlierRule, chunk: Document): number {
  const sequence: unknown = chunk[rule.sequenceField];
  return isSequenceNumber(sequence) ? sequence + 1 : 1;
}
