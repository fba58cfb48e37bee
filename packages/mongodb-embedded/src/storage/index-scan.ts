// Chooses the index scan that answers a read, as mongod's planner would for our purposes: the
// index whose leading fields the filter bounds most tightly (equalities first, then a range),
// preferring one whose order gives the requested sort, so that neither a collection scan nor
// a blocking in-memory sort is needed. A sort alone (no bounds) also picks its index.
import type { Document } from "bson";
import { boundsFor, FULL_INTERVAL, isPoint, type Interval } from "./index-bounds.js";
import type { IndexEntry, KeyRange, ScannableIndex } from "./ordered-keys.js";
import type { StoredCollection } from "./stored-collection.js";
import { compareValues } from "../query/index.js";

export interface IndexScanPlan {
  index: ScannableIndex;
  /** Intervals of the index's leading fields (the others are unbounded). */
  bounds: Interval[][];
  backward: boolean;
  /** The scan yields documents in the order of the requested sort. */
  providesSort: boolean;
}

export function planIndexScan(
  collection: StoredCollection,
  filter: Document,
  sort: Document | undefined,
  collated: boolean,
): IndexScanPlan | undefined {
  let best: { plan: IndexScanPlan; score: number } | undefined;
  for (const index of collection.scannableIndexes()) {
    const bounds = boundsFor(filter, index.fields, { collated, multikey: index.multikey });
    const order = collated || index.multikey ? undefined : sortOrder(sort, index, bounds);
    const score = bounds.reduce((sum, field) => sum + (field.every(isPoint) ? 2 : 1), 0);
    if (score === 0 && !order) continue;
    const plan = { index, bounds, backward: order?.backward ?? false, providesSort: order !== undefined };
    const rank = score * 2 + (order ? 1 : 0);
    if (!best || rank > best.score) best = { plan, score: rank };
  }
  return best?.plan;
}

/** Whether the index's order, forwards or backwards, is the sort's (fields that the bounds
 * pin to one value are constant and drop out of both). */
function sortOrder(
  sort: Document | undefined,
  index: ScannableIndex,
  bounds: Interval[][],
): { backward: boolean } | undefined {
  if (!sort || Object.keys(sort).length === 0) return undefined;
  const fields = index.fields.map((field, i) => ({ field, direction: index.directions[i]! }));
  const free = fields.filter((_, i) => !isFixed(bounds, i));
  const wanted = Object.entries(sort).filter(
    ([field]) => !fields.some((f, i) => f.field === field && isFixed(bounds, i)),
  );
  let ratio = 0;
  for (const [i, [field, direction]] of wanted.entries()) {
    const sign = Number(String(direction));
    if ((sign !== 1 && sign !== -1) || free[i]?.field !== field) return undefined;
    const current = sign * free[i]!.direction;
    if (ratio !== 0 && current !== ratio) return undefined;
    ratio = current;
  }
  return { backward: ratio < 0 };
}

/** Whether the bounds pin the index's `i`th field to one value. */
function isFixed(bounds: Interval[][], i: number): boolean {
  return bounds[i]?.length === 1 && isPoint(bounds[i]![0]!);
}

/** The key ranges a scan walks, in the order it walks them. */
export function keyRanges(plan: IndexScanPlan): KeyRange[] {
  const { directions } = plan.index;
  let combinations: Interval[][] = [[]];
  for (const [i, field] of plan.bounds.entries()) {
    const ordered = directions[i]! < 0 ? [...field].reverse() : field;
    combinations = combinations.flatMap((prefix) => ordered.map((interval) => [...prefix, interval]));
  }
  const ranges = combinations.map((intervals) => rangeOf(intervals, directions));
  return plan.backward ? ranges.reverse() : ranges;
}

function rangeOf(intervals: Interval[], directions: number[]): KeyRange {
  return new IntervalRange(intervals, directions);
}

// Methods rather than arrows: run from source, tsx names each arrow it makes with a
// defineProperty call, and a read makes a range per interval.
class IntervalRange implements KeyRange {
  constructor(
    private readonly intervals: Interval[],
    private readonly directions: number[],
  ) {}

  before(entry: IndexEntry): boolean {
    return this.place(entry) < 0;
  }

  after(entry: IndexEntry): boolean {
    return this.place(entry) > 0;
  }

  /** <0: the entry comes before the range in index order, >0 after it, 0 inside. */
  private place(entry: IndexEntry): number {
    for (let i = 0; i < this.intervals.length; i++) {
      const side = sideOf(entry.values[i], this.intervals[i]!) * this.directions[i]!;
      if (side !== 0) return side;
    }
    return 0;
  }
}

function sideOf(value: unknown, interval: Interval): number {
  const low = compareValues(value, interval.low);
  if (low < 0 || (low === 0 && !interval.lowInclusive)) return -1;
  const high = compareValues(value, interval.high);
  if (high > 0 || (high === 0 && !interval.highInclusive)) return 1;
  return 0;
}

/** mongod's explain `indexBounds`: per field, its intervals in the order the scan meets them. */
export function describeBounds(plan: IndexScanPlan): Document {
  const described: Document = {};
  for (const [i, field] of plan.index.fields.entries()) {
    const intervals = plan.bounds[i] ?? [FULL_INTERVAL];
    const descending = plan.index.directions[i]! * (plan.backward ? -1 : 1) < 0;
    described[field] = (descending ? [...intervals].reverse() : intervals).map((interval) =>
      describeInterval(interval, descending),
    );
  }
  return described;
}

function describeInterval(interval: Interval, descending: boolean): string {
  const low = `${interval.lowInclusive ? "[" : "("}${describeValue(interval.low)}`;
  const high = `${describeValue(interval.high)}${interval.highInclusive ? "]" : ")"}`;
  if (!descending) return `${low}, ${high}`;
  return `${interval.highInclusive ? "[" : "("}${describeValue(interval.high)}, ${describeValue(interval.low)}${interval.lowInclusive ? "]" : ")"}`;
}

function describeValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (value === Infinity) return "inf";
  if (value === -Infinity) return "-inf";
  if (value instanceof Date) return `new Date(${value.getTime()})`;
  const tag = (value as { _bsontype?: string } | null)?._bsontype;
  if (tag === "MinKey" || tag === "MaxKey") return tag;
  if (tag === "ObjectId") return `ObjectId('${String(value)}')`;
  if (value !== null && typeof value === "object" && tag === undefined) return JSON.stringify(value);
  return String(value);
}
