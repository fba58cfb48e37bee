// One collection's documents, multi-versioned for snapshot reads. Each document key maps to
// its versions, oldest first; a version is the committed document (or null once deleted) and
// the commit time. Documents are never mutated once stored (writers store new objects), so a
// reader holding a version needs no copy. Each stored document also has a RecordId, as in
// mongod: assigned when it is inserted, kept by updates, new when a deleted _id is inserted
// again. Map order follows it (a re-insert moves the key to the end): the natural order.
import { UUID, type Document } from "bson";
import { canonicalKey } from "./canonical-key.js";
import { OrderedKeys, type ScannableIndex } from "./ordered-keys.js";
import { SecondaryIndex, type IndexSpec } from "./secondary-index.js";

export interface DocumentVersion {
  ts: bigint;
  doc: Document | null;
  /** The RecordId of a stored document (0 for a deletion). */
  recordId: number;
}

export const ID_INDEX_NAME = "_id_";

export class StoredCollection {
  readonly uuid = new UUID();
  options: Document;
  private readonly versions = new Map<string, DocumentVersion[]>();
  private readonly secondary = new Map<string, SecondaryIndex>();
  /** The _id index in key order, for range scans and sorts by _id. */
  private idKeys = new OrderedKeys([1]);
  /** Keys written since the oldest open snapshot, with their commit time: snapshot readers
   * must look at them even when the (latest-state) indexes no longer point to them. */
  private recentWrites: { ts: bigint; key: string }[] = [];
  private liveCount = 0;
  private lastRecordId = 0;
  private writes = 0;
  private scannable: readonly ScannableIndex[] | undefined;

  /**
   * The transaction that created this collection and has not committed yet (an opaque
   * token): only it sees the collection; its abort discards it (catalog.ts).
   */
  pendingOwner: object | undefined;

  constructor(
    public db: string,
    public name: string,
    options: Document = {},
  ) {
    this.options = options;
  }

  /** A view (create with viewOn) is a catalog entry with no documents of its own. */
  get isView(): boolean {
    return this.options.viewOn !== undefined;
  }

  get ns(): string {
    return `${this.db}.${this.name}`;
  }

  get count(): number {
    return this.liveCount;
  }

  /** The document as of `ts` (latest when omitted), or null. */
  read(key: string, ts?: bigint): Document | null {
    return this.visible(key, ts)?.doc ?? null;
  }

  /** The RecordId of the document as of `ts` (latest when omitted); undefined if none. */
  recordId(key: string, ts?: bigint): number | undefined {
    const version = this.visible(key, ts);
    return version?.doc ? version.recordId : undefined;
  }

  /** Commit time of the latest version of a key (0 if it never existed). */
  lastWriteTime(key: string): bigint {
    const chain = this.versions.get(key);
    return chain ? chain[chain.length - 1]!.ts : 0n;
  }

  /** Every key, in natural order (some may be deleted at the time a reader looks). */
  keys(): IterableIterator<string> {
    return this.versions.keys();
  }

  /** Keys written after `ts` (a key written several times comes several times). */
  keysWrittenAfter(ts: bigint): string[] {
    const keys: string[] = [];
    for (let i = this.firstWriteAfter(ts); i < this.recentWrites.length; i++)
      keys.push(this.recentWrites[i]!.key);
    return keys;
  }

  /** Changes whenever a document is written or the collection emptied: what a reader derived
   * from the versions stays true while it stays the same. */
  get writeCount(): number {
    return this.writes;
  }

  /** Stores a new committed version; `oldestSnapshot` bounds which old versions to keep. */
  write(key: string, doc: Document | null, ts: bigint, oldestSnapshot: bigint | undefined): void {
    this.writes += 1;
    const before = this.read(key);
    const chain = this.versions.get(key) ?? [];
    const beforeId = before ? chain[chain.length - 1]!.recordId : 0;
    const recordId = !doc ? 0 : before ? beforeId : ++this.lastRecordId;
    this.reindex(key, { doc: before, recordId: beforeId }, { doc, recordId });
    this.liveCount += (doc ? 1 : 0) - (before ? 1 : 0);
    // A (re-)insert goes to the end of the natural order, even while snapshots still keep the
    // deleted versions of its _id.
    if (doc && !before) {
      this.versions.delete(key);
      this.versions.set(key, chain);
    }
    chain.push({ ts, doc, recordId });
    if (oldestSnapshot !== undefined) this.recentWrites.push({ ts, key });
    this.prune(key, chain, oldestSnapshot);
  }

  /** Drops versions and write records no open snapshot can see any more. */
  prune(key: string, chain: DocumentVersion[], oldestSnapshot: bigint | undefined): void {
    let keepFrom = chain.length - 1;
    if (oldestSnapshot !== undefined) {
      while (keepFrom > 0 && chain[keepFrom]!.ts > oldestSnapshot) keepFrom -= 1;
    }
    if (keepFrom > 0) chain.splice(0, keepFrom);
    if (chain.length === 1 && chain[0]!.doc === null) this.versions.delete(key);
  }

  /**
   * Forgets the write records no open snapshot needs any more (all, with none open), and drops
   * the old versions those writes kept for the snapshots: a document written while a snapshot
   * was open would otherwise keep its earlier version until its next write, for ever if none
   * comes (a book corrected once), as WiredTiger's history is not kept past its readers.
   */
  forgetWritesUpTo(oldestSnapshot: bigint | undefined): void {
    const forgotten =
      oldestSnapshot === undefined ? this.recentWrites.length : this.firstWriteAfter(oldestSnapshot);
    if (forgotten === 0) return;
    for (let i = 0; i < forgotten; i++) {
      const { key } = this.recentWrites[i]!;
      const chain = this.versions.get(key);
      if (chain) this.prune(key, chain, oldestSnapshot);
    }
    this.recentWrites = forgotten === this.recentWrites.length ? [] : this.recentWrites.slice(forgotten);
  }

  /** The position of the first write record after `ts`. Commits come in cluster-time order, so
   * the records are sorted by it: a transaction's reads find the writes after their snapshot by
   * bisection instead of filtering every record since the oldest snapshot on each read. */
  private firstWriteAfter(ts: bigint): number {
    let low = 0;
    let high = this.recentWrites.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.recentWrites[middle]!.ts > ts) high = middle;
      else low = middle + 1;
    }
    return low;
  }

  /** Empties the collection (a drop in place, used by $out's replace). */
  clear(): void {
    this.writes += 1;
    this.versions.clear();
    this.recentWrites = [];
    this.liveCount = 0;
    this.idKeys = new OrderedKeys([1]);
    for (const [name, index] of this.secondary) this.secondary.set(name, new SecondaryIndex(index.spec));
    this.scannable = undefined;
  }

  indexSpecs(): IndexSpec[] {
    return [
      { name: ID_INDEX_NAME, key: { _id: 1 }, unique: true, options: {} },
      ...this.indexes().map((i) => i.spec),
    ];
  }

  /** The _id index, then the secondary indexes a planner may scan (not sparse, not partial);
   * the same list until the indexes change, as every read plans through it. */
  scannableIndexes(): readonly ScannableIndex[] {
    this.scannable ??= this.listScannableIndexes();
    return this.scannable;
  }

  private listScannableIndexes(): ScannableIndex[] {
    const id: ScannableIndex = {
      name: ID_INDEX_NAME,
      keyPattern: { _id: 1 },
      fields: ["_id"],
      directions: [1],
      unique: true,
      multikey: false,
      keys: this.idKeys,
    };
    const usable = this.indexes().filter(
      (i) => !i.spec.options.sparse && !i.spec.options.partialFilterExpression,
    );
    return [id, ...usable.map((index) => index.scannable())];
  }

  indexes(): SecondaryIndex[] {
    return [...this.secondary.values()];
  }

  getIndex(name: string): SecondaryIndex | undefined {
    return this.secondary.get(name);
  }

  addIndex(spec: IndexSpec): SecondaryIndex {
    const index = new SecondaryIndex(spec);
    for (const [key, chain] of this.versions) {
      const { doc, recordId } = chain[chain.length - 1]!;
      if (doc) index.add(key, doc, recordId);
    }
    this.secondary.set(spec.name, index);
    this.scannable = undefined;
    return index;
  }

  dropIndex(name: string): boolean {
    this.scannable = undefined;
    return this.secondary.delete(name);
  }

  private visible(key: string, ts: bigint | undefined): DocumentVersion | undefined {
    const chain = this.versions.get(key);
    if (!chain) return undefined;
    if (ts === undefined) return chain[chain.length - 1];
    for (let i = chain.length - 1; i >= 0; i--) if (chain[i]!.ts <= ts) return chain[i];
    return undefined;
  }

  /** Moves the key's index entries from the version `before` to `after` (either may be none).
   * An update keeps its RecordId, so an index whose fields it left alone keeps its entries. */
  private reindex(
    key: string,
    before: { doc: Document | null; recordId: number },
    after: { doc: Document | null; recordId: number },
  ): void {
    if (before.doc && !after.doc)
      this.idKeys.remove({ values: [before.doc._id], docKey: key, recordId: before.recordId });
    if (after.doc && !before.doc)
      this.idKeys.insert({ values: [after.doc._id], docKey: key, recordId: after.recordId });
    for (const index of this.secondary.values()) {
      if (before.doc && after.doc && index.holdsSameKeys(before.doc, after.doc)) continue;
      if (before.doc) index.remove(key, before.doc, before.recordId);
      if (after.doc) index.add(key, after.doc, after.recordId);
    }
  }
}

export function documentKey(id: unknown): string {
  return canonicalKey(id);
}
