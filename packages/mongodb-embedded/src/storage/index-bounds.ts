// The index bounds of a filter, as mongod's planner builds them: for each of an index's
// leading fields, the values an equality or $in pins it to, until a field that a range
// ($gt/$gte/$lt/$lte, an anchored case-sensitive prefix regex) bounds or nothing bounds.
// Bounds only narrow what a scan visits: every document fetched is re-checked against the
// whole filter, so a bound may be wider than the filter, never narrower.
import { MaxKey, MinKey, type BSONRegExp, type Document } from "bson";
import { compareValues } from "../query/index.js";

export interface Interval {
  low: unknown;
  high: unknown;
  lowInclusive: boolean;
  highInclusive: boolean;
}

/** Most key ranges one scan walks (the product of the $in lists of its fields). */
const MAX_RANGES = 4096;

export const FULL_INTERVAL: Interval = point(new MinKey(), new MaxKey());

function point(low: unknown, high: unknown = low): Interval {
  return { low, high, lowInclusive: true, highInclusive: true };
}

/** Per leading field, its intervals in ascending order; all but the last field are points. */
export function boundsFor(filter: Document, fields: readonly string[], options: BoundOptions): Interval[][] {
  const bounds: Interval[][] = [];
  let ranges = 1;
  for (const field of fields) {
    const found = fieldBounds(conditionsOn(filter, field));
    if (!found || (options.collated && found.some(holdsString))) break;
    const isRange = found.some((interval) => interval !== undefined && !isPoint(interval));
    if (isRange && options.multikey) break;
    ranges *= Math.max(1, found.length);
    if (ranges > MAX_RANGES) break;
    bounds.push(found);
    if (isRange) break;
  }
  return bounds;
}

export interface BoundOptions {
  /** Strings compare under a collation: binary-keyed bounds cannot hold them. */
  collated: boolean;
  /** A document may hold several keys: two-sided ranges could miss it (mongod does not
   * intersect them either), so only equalities bound a multikey index. */
  multikey: boolean;
}

export function isPoint(interval: Interval): boolean {
  return interval.lowInclusive && interval.highInclusive && compareValues(interval.low, interval.high) === 0;
}

function conditionsOn(filter: Document, field: string): unknown[] {
  const found: unknown[] = [];
  if (Object.prototype.hasOwnProperty.call(filter, field)) found.push(filter[field]);
  if (Array.isArray(filter.$and)) {
    for (const clause of filter.$and as unknown[]) {
      if (isPlainObject(clause)) found.push(...conditionsOn(clause, field));
    }
  }
  return found;
}

/** The intervals the conditions allow, or undefined when none of them bounds the field. */
function fieldBounds(conditions: unknown[]): Interval[] | undefined {
  let points: unknown[] | undefined;
  let range: Interval | undefined;
  for (const condition of conditions) {
    for (const bound of conditionBounds(condition)) {
      if (Array.isArray(bound)) points = points ? points.filter((p) => bound.some((q) => same(p, q))) : bound;
      else range = range ? intersect(range, bound) : bound;
    }
  }
  if (points) {
    const inRange = range ? points.filter((p) => contains(range, p)) : points;
    return dedupe(inRange).map((p) => point(p));
  }
  if (!range) return undefined;
  return isEmpty(range) ? [] : [range];
}

/** What one condition says about its field: point lists, and intervals. */
function conditionBounds(condition: unknown): (unknown[] | Interval)[] {
  if (isRegex(condition)) return optional(regexInterval(condition));
  if (!isOperatorObject(condition)) return isScalar(condition) ? [[condition]] : [];
  const operators = condition as Document;
  const bounds: (unknown[] | Interval)[] = [];
  for (const [name, value] of Object.entries(operators)) {
    if (name === "$eq" && isScalar(value)) bounds.push([value]);
    else if (name === "$in" && Array.isArray(value) && value.every(isScalar)) bounds.push(value);
    else if (name in COMPARISONS && isScalar(value)) bounds.push(COMPARISONS[name]!(value));
    else if (name === "$regex") bounds.push(...optional(regexInterval(value, operators.$options)));
  }
  return bounds;
}

const COMPARISONS: Record<string, (value: unknown) => Interval> = {
  $gt: (v) => ({ ...bracketOf(v), low: v, lowInclusive: false }),
  $gte: (v) => ({ ...bracketOf(v), low: v, lowInclusive: true }),
  $lt: (v) => ({ ...bracketOf(v), high: v, highInclusive: false }),
  $lte: (v) => ({ ...bracketOf(v), high: v, highInclusive: true }),
};

/** Comparisons only match values of their own type ("type bracketing"): the whole bracket. */
function bracketOf(value: unknown): Interval {
  if (typeof value === "number" || isNumericObject(value)) return point(-Infinity, Infinity);
  if (typeof value === "string") return { low: "", lowInclusive: true, high: {}, highInclusive: false };
  if (value instanceof Date) return point(new Date(-8.64e15), new Date(8.64e15));
  return FULL_INTERVAL;
}

/** `^prefix...` without flags that change what the prefix matches: ["prefix", "prefiy"). */
function regexInterval(pattern: unknown, options?: unknown): Interval | undefined {
  const [source, flags] =
    pattern instanceof RegExp
      ? [pattern.source, pattern.flags]
      : typeof pattern === "string"
        ? [pattern, ""]
        : [(pattern as BSONRegExp).pattern, (pattern as BSONRegExp).options];
  const allFlags = `${flags}${typeof options === "string" ? options : ""}`;
  if (/[imx]/.test(allFlags)) return undefined;
  const prefix = literalPrefix(source);
  if (prefix === undefined || prefix === "") return undefined;
  const last = prefix.charCodeAt(prefix.length - 1);
  if (last === 0xffff) return { low: prefix, lowInclusive: true, high: {}, highInclusive: false };
  const next = prefix.slice(0, -1) + String.fromCharCode(last + 1);
  return { low: prefix, lowInclusive: true, high: next, highInclusive: false };
}

/** The literal text an anchored regex starts with, or undefined if it is not anchored. */
export function literalPrefix(source: string): string | undefined {
  if (!source.startsWith("^") || source.includes("|")) return undefined;
  let prefix = "";
  for (let i = 1; i < source.length; i++) {
    let char = source[i]!;
    if ("*?{".includes(char)) return prefix.slice(0, -1); // the last literal was optional
    if (".[]()+^$".includes(char)) return prefix;
    if (char === "\\") {
      char = source[i + 1] ?? "";
      if (char === "" || /[0-9A-Za-z]/.test(char)) return prefix;
      i += 1;
    }
    prefix += char;
  }
  return prefix;
}

function intersect(a: Interval, b: Interval): Interval {
  const low = compareValues(a.low, b.low);
  const high = compareValues(a.high, b.high);
  return {
    low: low >= 0 ? a.low : b.low,
    lowInclusive: low > 0 ? a.lowInclusive : low < 0 ? b.lowInclusive : a.lowInclusive && b.lowInclusive,
    high: high <= 0 ? a.high : b.high,
    highInclusive:
      high < 0 ? a.highInclusive : high > 0 ? b.highInclusive : a.highInclusive && b.highInclusive,
  };
}

function isEmpty(interval: Interval): boolean {
  const order = compareValues(interval.low, interval.high);
  return order > 0 || (order === 0 && !(interval.lowInclusive && interval.highInclusive));
}

export function contains(interval: Interval, value: unknown): boolean {
  const low = compareValues(value, interval.low);
  const high = compareValues(value, interval.high);
  return (
    (low > 0 || (low === 0 && interval.lowInclusive)) && (high < 0 || (high === 0 && interval.highInclusive))
  );
}

function dedupe(values: unknown[]): unknown[] {
  const sorted = [...values].sort((a, b) => compareValues(a, b));
  return sorted.filter((value, i) => i === 0 || !same(sorted[i - 1], value));
}

const same = (a: unknown, b: unknown) => compareValues(a, b) === 0;
const optional = <T>(value: T | undefined): T[] => (value === undefined ? [] : [value]);

function holdsString(interval: Interval): boolean {
  return typeof interval.low === "string" || typeof interval.high === "string";
}

/** A value an index key compares equal to exactly when the filter's equality matches it:
 * not an array or embedded document (mongod bounds those differently), not a regex. */
function isScalar(value: unknown): boolean {
  if (value === undefined || Array.isArray(value) || isRegex(value)) return false;
  return !isPlainObject(value);
}

function isPlainObject(value: unknown): value is Document {
  if (value === null || typeof value !== "object" || value instanceof Date) return false;
  return (value as { _bsontype?: string })._bsontype === undefined;
}

function isNumericObject(value: unknown): boolean {
  const tag = (value as { _bsontype?: string } | null)?._bsontype;
  return tag === "Int32" || tag === "Double" || tag === "Long" || tag === "Decimal128";
}

function isOperatorObject(value: unknown): boolean {
  return isPlainObject(value) && Object.keys(value)[0]?.startsWith("$") === true;
}

function isRegex(value: unknown): boolean {
  return value instanceof RegExp || (value as { _bsontype?: string } | null)?._bsontype === "BSONRegExp";
}
