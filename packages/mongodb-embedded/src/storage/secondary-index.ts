// A secondary index over the latest committed documents of a collection. It answers three
// questions without a scan: which documents may have this value in the index's first field
// (equality and $in lookups on values the ordered keys cannot bound), which documents already
// hold this whole key (unique), and which keys lie within bounds, in index order (scans).
import type { Document } from "bson";
import { canonicalKey } from "./canonical-key.js";
import { indexedValues, isPathMissing } from "./field-values.js";
import { OrderedKeys, type IndexEntry, type ScannableIndex } from "./ordered-keys.js";

export interface IndexSpec {
  name: string;
  key: Document;
  unique: boolean;
  /** Every other option as given (sparse, partialFilterExpression, expireAfterSeconds...). */
  options: Document;
}

/** mongod caps the fan-out of a compound multikey key; we cap it to keep memory bounded. */
const MAX_KEYS_PER_DOCUMENT = 10_000;

export class SecondaryIndex {
  readonly fields: string[];
  readonly directions: number[];
  private readonly byFirstField = new Map<string, Set<string>>();
  private readonly byWholeKey = new Map<string, Set<string>>();
  private readonly ordered: OrderedKeys;
  /** Set once a document holds several keys, and never cleared, as mongod's flag. */
  private multikey = false;
  /**
   * Each document version's whole keys, computed once: stored versions are never mutated, and a
   * transaction's uniqueness check compares every insert with every document it wrote before,
   * which recomputed them quadratically (5,000 inserts in one transaction took a minute).
   */
  private readonly wholeKeysOf = new WeakMap<Document, string[]>();
  private scannableView: ScannableIndex | undefined;

  constructor(readonly spec: IndexSpec) {
    this.fields = Object.keys(spec.key);
    this.directions = this.fields.map((field) => (Number(String(spec.key[field])) < 0 ? -1 : 1));
    this.ordered = new OrderedKeys(this.directions);
  }

  add(docKey: string, doc: Document, recordId: number): void {
    for (const value of new Set(this.firstFieldKeys(doc))) addTo(this.byFirstField, value, docKey);
    if (this.spec.unique) for (const key of this.wholeKeys(doc)) addTo(this.byWholeKey, key, docKey);
    const entries = this.orderedEntries(docKey, doc, recordId);
    if (entries.length > 1 || entries.some((e) => e.values.some(Array.isArray))) this.multikey = true;
    for (const entry of entries) this.ordered.insert(entry);
  }

  remove(docKey: string, doc: Document, recordId: number): void {
    for (const value of this.firstFieldKeys(doc)) removeFrom(this.byFirstField, value, docKey);
    if (this.spec.unique) for (const key of this.wholeKeys(doc)) removeFrom(this.byWholeKey, key, docKey);
    for (const entry of this.orderedEntries(docKey, doc, recordId)) this.ordered.remove(entry);
  }

  /**
   * Whether two versions of a document hold the same keys here, shown by the very same values
   * at every indexed path (an update copies the fields it does not touch, so they stay the
   * same objects). A sparse index also tells a missing field from null: it always re-indexes.
   */
  holdsSameKeys(before: Document, after: Document): boolean {
    if (this.spec.options.sparse === true) return false;
    return this.fields.every((field, i) =>
      sameValues(indexedValues(before, field, i === 0), indexedValues(after, field, i === 0)),
    );
  }

  /** The index as a scan sees it: one object, made once, whose multikey flag stays current. */
  scannable(): ScannableIndex {
    if (this.scannableView) return this.scannableView;
    const { name, key, unique } = this.spec;
    const { fields, directions, ordered: keys } = this;
    const isMultikey = () => this.multikey;
    this.scannableView = {
      name,
      keyPattern: key,
      fields,
      directions,
      unique,
      get multikey() {
        return isMultikey();
      },
      keys,
    };
    return this.scannableView;
  }

  /** Documents whose first indexed field may equal `value`. */
  lookup(value: unknown): ReadonlySet<string> {
    return this.byFirstField.get(canonicalKey(value)) ?? EMPTY;
  }

  /** Whether `lookup` of one of the values keyed `valueKeys` would list `doc` (were it indexed). */
  listsUnderAny(doc: Document, valueKeys: ReadonlySet<string>): boolean {
    return this.firstFieldKeys(doc).some((key) => valueKeys.has(key));
  }

  /** Documents (other than `docKey`) that hold one of `doc`'s keys in this unique index. */
  holdersOfSameKey(docKey: string, doc: Document): string[] {
    const holders = new Set<string>();
    for (const key of this.wholeKeys(doc)) {
      for (const holder of this.byWholeKey.get(key) ?? EMPTY) if (holder !== docKey) holders.add(holder);
    }
    return [...holders];
  }

  /** The keys `after` holds in this unique index that `before` (null: none) does not. */
  addedKeys(before: Document | null, after: Document): string[] {
    const kept = before ? this.wholeKeys(before) : [];
    return this.wholeKeys(after).filter((key) => !kept.includes(key));
  }

  /** Documents that hold `key` (one of addedKeys') in this unique index. */
  holdersOf(key: string): ReadonlySet<string> {
    return this.byWholeKey.get(key) ?? EMPTY;
  }

  /** Whether `doc` holds `key` (one of addedKeys') in this unique index. */
  holds(doc: Document, key: string): boolean {
    return this.wholeKeys(doc).includes(key);
  }

  /** Whether two documents hold a common key in this unique index. */
  sharesKey(a: Document, b: Document): boolean {
    const keys = this.wholeKeys(a);
    return this.wholeKeys(b).some((key) => keys.includes(key));
  }

  /** The values of `doc` for each indexed field, for E11000's keyValue. */
  keyValue(doc: Document): Document {
    const value: Document = {};
    for (const field of this.fields) value[field] = indexedValues(doc, field, false)[0];
    return value;
  }

  private firstFieldKeys(doc: Document): string[] {
    return indexedValues(doc, this.fields[0]!).map(canonicalKey);
  }

  /** One entry per key of the document: the product of its values for each field. */
  private orderedEntries(docKey: string, doc: Document, recordId: number): IndexEntry[] {
    let tuples: unknown[][] = [[]];
    for (const field of this.fields) {
      const values = indexedValues(doc, field, false);
      tuples = tuples.flatMap((tuple) => values.map((v) => [...tuple, v])).slice(0, MAX_KEYS_PER_DOCUMENT);
    }
    return tuples.map((values) => ({ values, docKey, recordId }));
  }

  private wholeKeys(doc: Document): string[] {
    let keys = this.wholeKeysOf.get(doc);
    if (!keys) {
      keys = this.computeWholeKeys(doc);
      this.wholeKeysOf.set(doc, keys);
    }
    return keys;
  }

  private computeWholeKeys(doc: Document): string[] {
    if (this.spec.options.sparse === true && this.fields.every((f) => isPathMissing(doc, f))) return [];
    let keys = [""];
    for (const field of this.fields) {
      const values = [...new Set(indexedValues(doc, field, false).map(canonicalKey))];
      keys = keys.flatMap((prefix) => values.map((v) => `${prefix}|${v}`)).slice(0, MAX_KEYS_PER_DOCUMENT);
    }
    return keys;
  }
}

const EMPTY: ReadonlySet<string> = new Set();

function sameValues(a: unknown[], b: unknown[]): boolean {
  return a.length === b.length && a.every((value, i) => Object.is(value, b[i]));
}

function addTo(map: Map<string, Set<string>>, key: string, docKey: string): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(docKey);
}

function removeFrom(map: Map<string, Set<string>>, key: string, docKey: string): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(docKey);
  if (set.size === 0) map.delete(key);
}
