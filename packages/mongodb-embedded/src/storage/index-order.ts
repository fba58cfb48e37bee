// The order in which an index scan yields documents. mongod answers an indexed read (IXSCAN)
// in index key order: by the index's fields in BSON order, each in its direction, ties broken
// by RecordId; a document with several keys (multikey) comes once, at its first key. Callers
// with no sort (updateOne, findOne, deleteOne...) act on the first document of that order, and
// applications rely on it (e.g. "the chunk with the lowest seq" under an index {book, seq}).
// Our indexes are hash maps, so the documents an index lookup matched are put in order here.
import type { Document } from "bson";
import { compareValues } from "../query/index.js";
import { canonicalKey } from "./canonical-key.js";
import { indexedValues } from "./field-values.js";

export interface IndexOrder {
  /** The index's key pattern: its fields in order, each 1 (ascending) or -1 (descending). */
  pattern: Document;
  /** The values the lookup asked the first field to equal (equality or $in). */
  firstFieldValues: unknown[];
}

interface Entry {
  key: string;
  doc: Document;
}

interface Decorated<T> {
  entry: T;
  values: unknown[];
  recordId: number;
}

/** `found` in the order an index scan would yield it; `recordIdOf` breaks ties. */
export function orderByIndex<T extends Entry>(
  found: T[],
  order: IndexOrder,
  recordIdOf: (key: string) => number,
): T[] {
  if (found.length < 2) return found;
  const fields = Object.keys(order.pattern);
  const directions = fields.map((field) => directionOf(order.pattern[field]));
  const wanted = new Set(order.firstFieldValues.map(canonicalKey));
  const decorated: Decorated<T>[] = found.map((entry) => ({
    entry,
    values: fields.map((field, i) =>
      firstKeyValue(entry.doc, field, directions[i]!, i === 0 ? wanted : undefined),
    ),
    recordId: recordIdOf(entry.key),
  }));
  decorated.sort((a, b) => compareKeys(a, b, directions));
  return decorated.map((d) => d.entry);
}

function compareKeys<T>(a: Decorated<T>, b: Decorated<T>, directions: number[]): number {
  for (let i = 0; i < directions.length; i++) {
    const order = compareValues(a.values[i], b.values[i]);
    if (order !== 0) return order * directions[i]!;
  }
  return a.recordId - b.recordId;
}

/** A document's value for `field` in the first of its index keys the scan reaches: the
 * smallest (ascending) or largest (descending) of its values, among the looked-up values
 * for the first field, since the scan's bounds skip every other key there. */
function firstKeyValue(doc: Document, field: string, direction: number, within?: Set<string>): unknown {
  let values = indexedValues(doc, field, within !== undefined);
  if (within) {
    const inBounds = values.filter((value) => within.has(canonicalKey(value)));
    if (inBounds.length > 0) values = inBounds;
  }
  let first = values[0];
  for (const value of values) if (compareValues(value, first) * direction < 0) first = value;
  return first;
}

/** -1 for a descending field. Patterns hold numbers the driver may send as Int32, Double,
 * Long or Decimal128; each prints as its number. */
function directionOf(value: unknown): number {
  return Number(String(value)) < 0 ? -1 : 1;
}
