// What one reader sees: the latest committed state, or a transaction's snapshot with its own
// uncommitted writes laid over it.
import type { Document } from "bson";
import { compileFilter, type StringComparator } from "../query/index.js";
import { planLookup, type IndexLookup } from "./candidate-keys.js";
import { orderByIndex } from "./index-order.js";
import type { StoredCollection } from "./stored-collection.js";

export interface VisibleDocument {
  key: string;
  doc: Document;
}

/** A transaction's own writes to one collection: document key -> new document or null. */
export type WriteOverlay = ReadonlyMap<string, Document | null>;

export class ReadView {
  constructor(
    /** Snapshot time; undefined reads the latest committed state. */
    readonly snapshot?: bigint,
    private readonly overlayOf: (collection: StoredCollection) => WriteOverlay | undefined = () => undefined,
  ) {}

  get(collection: StoredCollection, key: string): Document | null {
    const overlay = this.overlayOf(collection);
    if (overlay?.has(key)) return overlay.get(key) ?? null;
    return collection.read(key, this.snapshot);
  }

  /** Documents matching `filter` (strings compared by `strings`, a collation's order;
   * `variables` are the command's `let`), in the order mongod yields them without a sort:
   * natural order for scans, the index's key order for index lookups. */
  find(
    collection: StoredCollection | undefined,
    filter: Document = {},
    strings?: StringComparator,
    variables?: Document,
  ): VisibleDocument[] {
    if (!collection) return [];
    const matches = compileFilter(filter, { strings, variables });
    const lookup = planLookup(collection, filter, strings !== undefined);
    const found: VisibleDocument[] = [];
    for (const key of this.keysToVisit(collection, lookup)) {
      const doc = this.get(collection, key);
      if (doc && matches(doc)) found.push({ key, doc });
    }
    // Ordered after reading: the versions this reader sees decide the keys, not the index.
    if (!lookup) return found;
    return orderByIndex(found, lookup.order, (key) => this.recordId(collection, key));
  }

  /** This reader's own uncommitted writes to a collection, if any. */
  overlay(collection: StoredCollection): WriteOverlay | undefined {
    return this.overlayOf(collection);
  }

  documents(collection: StoredCollection | undefined): Document[] {
    return this.find(collection).map((v) => v.doc);
  }

  /** The RecordId of the document this reader sees; a transaction's own inserts have none
   * yet and go after every committed document (the stable sort keeps them in overlay order). */
  private recordId(collection: StoredCollection, key: string): number {
    return collection.recordId(key, this.snapshot) ?? Number.MAX_SAFE_INTEGER;
  }

  private keysToVisit(collection: StoredCollection, lookup: IndexLookup | undefined): Iterable<string> {
    const overlay = this.overlayOf(collection);
    const candidates = lookup?.keys;
    if (!candidates) {
      if (!overlay || overlay.size === 0) return collection.keys();
      return new Set([...collection.keys(), ...overlay.keys()]);
    }
    // Indexes describe the latest state; a snapshot also checks what changed since it.
    if (this.snapshot !== undefined)
      for (const key of collection.keysWrittenAfter(this.snapshot)) candidates.add(key);
    if (overlay) for (const key of overlay.keys()) candidates.add(key);
    return candidates;
  }
}
