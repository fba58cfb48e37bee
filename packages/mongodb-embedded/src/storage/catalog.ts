// Databases and their collections, the snapshots readers hold, and the one commit path:
// every committed change gets a fresh cluster time and is reported, in order, to the change
// log (the oplog's role). Catalog changes (create, drop, rename) commit immediately, except a
// collection a transaction creates: it is the transaction's own until it commits (its create
// is reported then) and is discarded without a trace if it aborts.
import type { Document, Timestamp } from "bson";
import type { ChangeRecord } from "../changestream/change-record.js";
import { ServerError, ErrorCode } from "../errors.js";
import { timestampToBigInt, type ClusterClock } from "./cluster-clock.js";
import { StoredCollection } from "./stored-collection.js";

export interface DocumentWrite {
  collection: StoredCollection;
  key: string;
  /** The new committed document, or null to delete. */
  doc: Document | null;
}

export type CommitListener = (records: ChangeRecord[], clusterTime: Timestamp, wallTime: Date) => void;

export class Catalog {
  private readonly databases = new Map<string, Map<string, StoredCollection>>();
  /** Open snapshot times, with how many readers hold each. */
  private readonly snapshots = new Map<bigint, number>();

  constructor(
    private readonly clock: ClusterClock,
    private readonly onCommit: CommitListener,
  ) {}

  collection(db: string, name: string): StoredCollection | undefined {
    return this.databases.get(db)?.get(name);
  }

  collections(db: string): StoredCollection[] {
    return [...(this.databases.get(db)?.values() ?? [])];
  }

  databaseNames(): string[] {
    return [...this.databases.keys()];
  }

  /** `owner`: the transaction creating it, which alone sees it until `adoptPending`. */
  createCollection(db: string, name: string, options: Document = {}, owner?: object): StoredCollection {
    validateCollectionName(db, name);
    if (this.collection(db, name)) {
      throw new ServerError(
        ErrorCode.NamespaceExists,
        "NamespaceExists",
        `Collection ${db}.${name} already exists.`,
      );
    }
    let collections = this.databases.get(db);
    if (!collections) this.databases.set(db, (collections = new Map()));
    const collection = new StoredCollection(db, name, options);
    collections.set(name, collection);
    collection.pendingOwner = owner;
    if (!owner) this.commitCatalogChange([createRecord(collection)]);
    return collection;
  }

  /**
   * Inserts and upserts create their collection implicitly, as mongod does; in a transaction
   * (`owner`), as that transaction's own. A write outside it to a collection another
   * transaction is creating makes the collection committed at once, so that an abort never
   * discards committed documents.
   */
  /** The collection a write reads its targets from; a view has none to write (mongod's 166). */
  writableCollection(db: string, name: string): StoredCollection | undefined {
    const collection = this.collection(db, name);
    if (collection?.isView) throw viewNotWritable(collection.ns);
    return collection;
  }

  ensureCollection(db: string, name: string, owner?: object): StoredCollection {
    const existing = this.writableCollection(db, name);
    if (!existing) return this.createCollection(db, name, {}, owner);
    if (existing.pendingOwner && existing.pendingOwner !== owner) this.adoptPending(existing);
    return existing;
  }

  /** Whether `collection` exists for a reader in transaction `owner` (or outside any). */
  isVisible(collection: StoredCollection, owner?: object): boolean {
    return collection.pendingOwner === undefined || collection.pendingOwner === owner;
  }

  /** The creating transaction committed (or another writer needed the collection): it exists for all. */
  adoptPending(collection: StoredCollection): void {
    if (!collection.pendingOwner) return;
    collection.pendingOwner = undefined;
    this.commitCatalogChange([createRecord(collection)]);
  }

  /** The creating transaction aborted: the collection never existed. */
  discardPending(collection: StoredCollection, owner: object): void {
    if (collection.pendingOwner !== owner) return;
    const collections = this.databases.get(collection.db);
    if (collections?.get(collection.name) !== collection) return;
    collections.delete(collection.name);
    if (collections.size === 0) this.databases.delete(collection.db);
  }

  dropCollection(db: string, name: string): boolean {
    const collections = this.databases.get(db);
    if (!collections?.delete(name)) return false;
    if (collections.size === 0) this.databases.delete(db);
    this.commitCatalogChange([{ operationType: "drop", db, coll: name, imagesRecorded: false }]);
    return true;
  }

  dropDatabase(db: string): void {
    const collections = this.databases.get(db);
    if (!collections) return;
    const records: ChangeRecord[] = [...collections.keys()].map((coll) => ({
      operationType: "drop",
      db,
      coll,
      imagesRecorded: false,
    }));
    this.databases.delete(db);
    this.commitCatalogChange([...records, { operationType: "dropDatabase", db, imagesRecorded: false }]);
  }

  renameCollection(from: StoredCollection, toDb: string, toName: string): void {
    validateCollectionName(toDb, toName);
    const source = this.databases.get(from.db);
    source?.delete(from.name);
    if (source?.size === 0) this.databases.delete(from.db);
    let target = this.databases.get(toDb);
    if (!target) this.databases.set(toDb, (target = new Map()));
    const record: ChangeRecord = {
      operationType: "rename",
      db: from.db,
      coll: from.name,
      to: { db: toDb, coll: toName },
      imagesRecorded: false,
    };
    from.db = toDb;
    from.name = toName;
    target.set(toName, from);
    this.commitCatalogChange([record]);
  }

  /** Reports a catalog-level change (createIndexes, collMod, ...) as its own commit. */
  commitCatalogChange(records: ChangeRecord[]): Timestamp {
    const ts = this.clock.tick();
    this.onCommit(records, ts, new Date());
    return ts;
  }

  /** Applies document writes atomically at one new cluster time and reports their records. */
  commit(writes: DocumentWrite[], records: ChangeRecord[]): Timestamp {
    const ts = this.clock.tick();
    const time = timestampToBigInt(ts);
    const oldest = this.oldestSnapshot();
    for (const write of writes) write.collection.write(write.key, write.doc, time, oldest);
    if (records.length > 0) this.onCommit(records, ts, new Date());
    return ts;
  }

  /** Pins the current committed state for a reader; release it with releaseSnapshot. */
  openSnapshot(): bigint {
    const ts = timestampToBigInt(this.clock.current());
    this.snapshots.set(ts, (this.snapshots.get(ts) ?? 0) + 1);
    return ts;
  }

  releaseSnapshot(ts: bigint): void {
    const holders = (this.snapshots.get(ts) ?? 1) - 1;
    if (holders > 0) this.snapshots.set(ts, holders);
    else this.snapshots.delete(ts);
    const oldest = this.oldestSnapshot();
    for (const collections of this.databases.values()) {
      for (const collection of collections.values()) collection.forgetWritesUpTo(oldest);
    }
  }

  oldestSnapshot(): bigint | undefined {
    let oldest: bigint | undefined;
    for (const ts of this.snapshots.keys()) if (oldest === undefined || ts < oldest) oldest = ts;
    return oldest;
  }
}

function validateCollectionName(db: string, name: string): void {
  if (db.length === 0 || /[/\\. "$]/.test(db)) {
    throw new ServerError(ErrorCode.InvalidNamespace, "InvalidNamespace", `Invalid database name: '${db}'`);
  }
  if (name.length === 0 || name.includes("$") || name.includes("\0") || name.startsWith("system.")) {
    throw new ServerError(
      ErrorCode.InvalidNamespace,
      "InvalidNamespace",
      `Invalid collection name: '${name}'`,
    );
  }
}

function createRecord(collection: StoredCollection): ChangeRecord {
  return { operationType: "create", db: collection.db, coll: collection.name, imagesRecorded: false };
}

/** What mongod answers a write or an index build on a view. */
export function viewNotWritable(ns: string): ServerError {
  return new ServerError(
    ErrorCode.CommandNotSupportedOnView,
    "CommandNotSupportedOnView",
    `Namespace ${ns} is a view, not a collection`,
  );
}
