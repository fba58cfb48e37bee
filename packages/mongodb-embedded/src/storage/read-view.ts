// What one reader sees: the latest committed state, or a transaction's snapshot with its own
// uncommitted writes laid over it.
import type { Document } from "bson";
import { compileFilter, type StringComparator } from "../query/index.js";
import { planLookup, type IndexLookup } from "./candidate-keys.js";
import { indexedValues } from "./field-values.js";
import { canonicalKey } from "./canonical-key.js";
import { contains, isPoint } from "./index-bounds.js";
import { keyRanges, planIndexScan, type IndexScanPlan } from "./index-scan.js";
import { orderByIndex } from "./index-order.js";
import { planOrBranches, type BranchPlan } from "./or-plan.js";
import { ID_INDEX_NAME, type StoredCollection } from "./stored-collection.js";
import { runToEnd, runYielding, type Steps } from "../yield-period.js";

/** A scan may pause for the other connections after every this many documents or keys (see querySteps). */
const DOCUMENTS_PER_STEP = 64;

export interface VisibleDocument {
  key: string;
  doc: Document;
}

export interface QueryOptions {
  filter?: Document;
  /** The sort the caller will apply: an index that gives this order is preferred. */
  sort?: Document;
  /** Documents wanted (skip included); 0 or absent for all. Scans in sort order stop there. */
  limit?: number;
  strings?: StringComparator;
  variables?: Document;
}

/** How a read found its documents, for explain. */
export type AccessPath = IndexPath | { stage: "OR"; branches: OrBranch[] } | { stage: "COLLSCAN" };

export type IndexPath = { stage: "IXSCAN"; scan: IndexScanPlan } | { stage: "IXSCAN"; lookup: IndexLookup };

/** One branch of a top-level $or read through an index, and the keys it examined. */
export interface OrBranch {
  path: IndexPath;
  keysExamined: number;
}

export interface QueryResult {
  found: VisibleDocument[];
  path: AccessPath;
  /** The documents come in the requested sort's order already. */
  sorted: boolean;
  keysExamined: number;
  docsExamined: number;
}

/** A transaction's own writes to one collection: document key -> new document or null. */
export type WriteOverlay = ReadonlyMap<string, Document | null>;

export class ReadView {
  /** What committedSinceSnapshot found, per collection, and the collection's write count then. */
  private readonly committedChanges = new Map<
    StoredCollection,
    { writeCount: number; docs: ReadonlyMap<string, Document | null> }
  >();

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
    return this.query(collection, { filter, strings, variables }).found;
  }

  /** A read through the best index scan, an equality lookup, or a collection scan. */
  query(collection: StoredCollection, options: QueryOptions): QueryResult {
    return runToEnd(this.querySteps(collection, options));
  }

  /**
   * query() for a command's own read (find, count, distinct, an aggregate's leading read): a
   * collection scan or a scan of _id points hands the server's only thread to the other
   * connections every YIELD_PERIOD_MS, as mongod's queries yield their locks. Each document is
   * then read in its latest committed version when the scan reaches it, as mongod's "local"
   * reads do across a yield: one written meanwhile is seen as written, one inserted meanwhile
   * may be seen. A transaction's reads (a view with a snapshot) run to the end: mongod's
   * transactions keep their locks. A `killed` read ends at a yield (runYielding).
   */
  queryYielding(
    collection: StoredCollection,
    options: QueryOptions,
    killed: AbortSignal | undefined,
  ): Promise<QueryResult> {
    const steps = this.querySteps(collection, options);
    return this.snapshot === undefined ? runYielding(steps, killed) : Promise.resolve(runToEnd(steps));
  }

  private *querySteps(collection: StoredCollection, options: QueryOptions): Steps<QueryResult> {
    const filter = options.filter ?? {};
    const matches = compileFilter(filter, { strings: options.strings, variables: options.variables });
    const collated = options.strings !== undefined;
    const scan = planIndexScan(collection, filter, options.sort, collated);
    if (scan) return yield* this.scanIndex(collection, scan, matches, options);
    const lookup = planLookup(collection, filter, collated);
    const branches = lookup ? undefined : planOrBranches(collection, filter, collated);
    if (branches) return yield* this.readBranches(collection, branches, matches);
    return yield* this.readKeys(collection, lookup, matches);
  }

  /** The documents of an equality lookup's keys, or of every key (a collection scan). */
  private *readKeys(
    collection: StoredCollection,
    lookup: IndexLookup | undefined,
    matches: (doc: Document) => boolean,
  ): Steps<QueryResult> {
    const result: QueryResult = {
      found: [],
      path: lookup ? { stage: "IXSCAN", lookup } : { stage: "COLLSCAN" },
      sorted: false,
      keysExamined: lookup?.keys.size ?? 0,
      docsExamined: 0,
    };
    for (const key of this.keysToVisit(collection, lookup)) {
      result.docsExamined += 1;
      const doc = this.get(collection, key);
      if (doc && matches(doc)) result.found.push({ key, doc });
      if (result.docsExamined % DOCUMENTS_PER_STEP === 0) yield;
    }
    // Ordered after reading: the versions this reader sees decide the keys, not the index.
    if (lookup)
      result.found = orderByIndex(result.found, lookup.order, (key) => this.recordId(collection, key));
    return result;
  }

  /** Each branch of a top-level $or through its index, in the order given; a document that
   * several branches find is returned once, where the first found it. */
  private *readBranches(
    collection: StoredCollection,
    branches: BranchPlan[],
    matches: (doc: Document) => boolean,
  ): Steps<QueryResult> {
    const read: OrBranch[] = [];
    const result: QueryResult = {
      found: [],
      path: { stage: "OR", branches: read },
      sorted: false,
      keysExamined: 0,
      docsExamined: 0,
    };
    const seen = new Set<string>();
    for (const branch of branches) {
      const found =
        "scan" in branch
          ? yield* this.scanIndex(collection, branch.scan, matches, {})
          : yield* this.readKeys(collection, branch.lookup, matches);
      read.push({ path: found.path as IndexPath, keysExamined: found.keysExamined });
      result.keysExamined += found.keysExamined;
      result.docsExamined += found.docsExamined;
      for (const visible of found.found) {
        if (seen.has(visible.key)) continue;
        seen.add(visible.key);
        result.found.push(visible);
      }
    }
    return result;
  }

  /** Walks the plan's key ranges; stops once `limit` documents are found in sort order. The
   * keys this reader sees differently from the (latest-state) index are read on their own
   * and merged in key order. Only a scan of _id points pauses: a range scan walks the index's
   * ordered keys, which a write during a pause would shift under it. */
  private *scanIndex(
    collection: StoredCollection,
    plan: IndexScanPlan,
    matches: (doc: Document) => boolean,
    options: QueryOptions,
  ): Steps<QueryResult> {
    const enough = (plan.providesSort || !options.sort) && options.limit ? options.limit : Infinity;
    const result: QueryResult = {
      found: [],
      path: { stage: "IXSCAN", scan: plan },
      sorted: plan.providesSort,
      keysExamined: 0,
      docsExamined: 0,
    };
    const idPoints = idPointKeys(plan);
    if (idPoints) {
      yield* this.readIdPoints(collection, idPoints, matches, enough, result);
      return result;
    }
    const changed = this.changedDocuments(collection);
    const visited = new Set<string>();
    scanning: for (const range of keyRanges(plan)) {
      for (const { docKey } of plan.index.keys.scan(range, plan.backward)) {
        if (result.found.length >= enough) break scanning;
        result.keysExamined += 1;
        if (changed.has(docKey) || visited.has(docKey)) continue;
        visited.add(docKey);
        examine(result, docKey, collection.read(docKey), matches);
      }
    }
    const before = result.found.length;
    const mayMatch = withinFirstBounds(plan);
    // A transaction re-checks every key written since its snapshot on every read; most lie
    // far outside the scan's bounds, and the filter need not run over them.
    for (const [key, doc] of changed) {
      if (doc && !visited.has(key) && mayMatch(doc)) examine(result, key, doc, matches);
    }
    if (result.found.length > before) {
      const directions = plan.index.directions.map((d) => (plan.backward ? -d : d));
      const pattern = Object.fromEntries(plan.index.fields.map((f, i) => [f, directions[i]]));
      const ordered = orderByIndex(result.found, { pattern, firstFieldValues: [] }, (key) =>
        this.recordId(collection, key),
      );
      result.found = ordered.slice(0, enough);
    }
    return result;
  }

  /**
   * A scan of _id points reads each point's document directly, as mongod's IDHACK does: a
   * document's key is its _id's canonical key, so the version this reader sees is found without
   * walking the index or looking at what else changed since the snapshot. The points come in
   * the scan's order, which is the order of the documents.
   */
  private *readIdPoints(
    collection: StoredCollection,
    keys: string[],
    matches: (doc: Document) => boolean,
    enough: number,
    result: QueryResult,
  ): Steps<void> {
    for (const [index, key] of keys.entries()) {
      if (result.found.length >= enough) return;
      // The index holds the latest committed document, whatever this reader sees.
      if (collection.read(key)) result.keysExamined += 1;
      const doc = this.get(collection, key);
      if (doc) examine(result, key, doc, matches);
      if ((index + 1) % DOCUMENTS_PER_STEP === 0) yield;
    }
  }

  /**
   * Keys whose version this reader sees may differ from the latest committed one, which the
   * indexes describe: its own uncommitted writes and the keys committed after its snapshot, each
   * with the version this reader sees (null: none).
   */
  private changedDocuments(collection: StoredCollection): ReadonlyMap<string, Document | null> {
    const overlay = this.overlayOf(collection);
    const committed = this.committedSinceSnapshot(collection);
    if (!overlay || overlay.size === 0) return committed;
    const changed = new Map(committed);
    for (const [key, doc] of overlay) changed.set(key, doc);
    return changed;
  }

  /**
   * The keys committed after the snapshot, with their version at the snapshot. A transaction
   * reads many times between commits (a $lookup once per joined document): the versions at its
   * snapshot never change, so they are looked up again only once the collection was written.
   */
  committedSinceSnapshot(collection: StoredCollection): ReadonlyMap<string, Document | null> {
    if (this.snapshot === undefined) return NOTHING_CHANGED;
    const known = this.committedChanges.get(collection);
    if (known?.writeCount === collection.writeCount) return known.docs;
    const docs = new Map<string, Document | null>();
    for (const key of collection.keysWrittenAfter(this.snapshot)) {
      if (!docs.has(key)) docs.set(key, collection.read(key, this.snapshot));
    }
    this.committedChanges.set(collection, { writeCount: collection.writeCount, docs });
    return docs;
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
    if (!lookup) {
      if (!overlay || overlay.size === 0) return collection.keys();
      return new Set([...collection.keys(), ...overlay.keys()]);
    }
    // Indexes describe the latest state; a snapshot also checks what changed since it, where
    // the version it sees could be yielded. A transaction re-checks every key written since
    // its snapshot on every read: most could not.
    const { keys, mayYield } = lookup;
    if (!mayYield) return keys;
    const add = (key: string, doc: Document | null) => {
      if (doc && mayYield(doc)) keys.add(key);
    };
    for (const [key, doc] of this.committedSinceSnapshot(collection)) if (!overlay?.has(key)) add(key, doc);
    if (overlay) for (const [key, doc] of overlay) add(key, doc);
    return keys;
  }
}

/**
 * Whether a document may lie inside the scan: one of its values of the index's first field
 * inside one of that field's intervals. The bounds come from the filter, so a document
 * outside them cannot match it.
 */
function withinFirstBounds(plan: IndexScanPlan): (doc: Document) => boolean {
  const intervals = plan.bounds[0];
  const field = plan.index.fields[0];
  if (!intervals || field === undefined) return () => true;
  return (doc) =>
    indexedValues(doc, field).some((value) => intervals.some((interval) => contains(interval, value)));
}

/** Counts a document read and keeps it if it matches. */
function examine(
  result: QueryResult,
  key: string,
  doc: Document | null,
  matches: (doc: Document) => boolean,
): void {
  result.docsExamined += 1;
  if (doc && matches(doc)) result.found.push({ key, doc });
}

/** The canonical keys of a scan of _id points, in the scan's order; undefined for other scans. */
function idPointKeys(plan: IndexScanPlan): string[] | undefined {
  const intervals = plan.bounds[0];
  if (plan.index.name !== ID_INDEX_NAME || !intervals?.every(isPoint)) return undefined;
  const keys = new Set(intervals.map((interval) => canonicalKey(interval.low)));
  return plan.backward ? [...keys].reverse() : [...keys];
}

const NOTHING_CHANGED: ReadonlyMap<string, Document | null> = new Map();
