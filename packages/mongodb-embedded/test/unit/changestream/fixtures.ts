// Building blocks for the change-stream unit tests: records as the storage layer reports them,
// and a change log with a controllable cluster clock.
import { Timestamp, type Document } from "bson";
import {
  ChangeLog,
  openChangeStream,
  type ChangeRecord,
  type ChangeStreamRequest,
} from "../../../src/changestream/index.js";
import { recordUpdate } from "../../../src/changestream/update-description.js";
import type { CursorBatch, ServerCursor } from "../../../src/cursor.js";

export function insertRecord(
  db: string,
  coll: string,
  doc: Document,
  extra: Partial<ChangeRecord> = {},
): ChangeRecord {
  return {
    operationType: "insert",
    db,
    coll,
    documentKey: { _id: doc._id },
    postImage: doc,
    imagesRecorded: false,
    ...extra,
  };
}

export function updateRecord(
  db: string,
  coll: string,
  before: Document,
  after: Document,
  extra: Partial<ChangeRecord> = {},
): ChangeRecord {
  // As the storage layer reports an update (operation-scope.ts): its delta, and its images only
  // where the collection records them.
  const imagesRecorded = extra.imagesRecorded ?? false;
  return {
    operationType: "update",
    db,
    coll,
    documentKey: { _id: after._id },
    update: recordUpdate(before, after),
    ...(imagesRecorded ? { preImage: before, postImage: after } : {}),
    imagesRecorded,
    ...extra,
  };
}

export function dropRecord(db: string, coll: string): ChangeRecord {
  return { operationType: "drop", db, coll, imagesRecorded: false };
}

/** A change log plus the cluster clock and the committed documents a real server would have. */
export class FakeDeployment {
  readonly changeLog: ChangeLog;
  readonly documents = new Map<string, Document>();
  /** How many post-images the streams looked up (updateLookup). */
  lookups = 0;
  private seconds = 1_700_000_000;
  private increment = 0;

  constructor(historyLimit = 1000) {
    this.changeLog = new ChangeLog({ historyLimit });
  }

  now(): Timestamp {
    return new Timestamp({ t: this.seconds, i: this.increment });
  }

  /** Commits records at the next cluster time and returns that time. */
  commit(...records: ChangeRecord[]): Timestamp {
    this.increment += 1;
    const time = this.now();
    this.changeLog.append(records, time, new Date(this.seconds * 1000));
    return time;
  }

  /** Moves the clock without a write, as mongod's periodic no-op writer does. */
  tick(): void {
    this.increment += 1;
  }

  open(request: Partial<ChangeStreamRequest> & { db: string }): ServerCursor {
    return openChangeStream(
      { allChangesForCluster: false, spec: {}, pipeline: [], ...request },
      {
        changeLog: this.changeLog,
        currentClusterTime: () => this.now(),
        lookupDocument: (db, coll, key) => {
          this.lookups += 1;
          return this.documents.get(`${db}.${coll}.${String(key._id)}`) ?? null;
        },
        collectionExists: () => true,
      },
    );
  }
}

export function nextBatch(
  cursor: ServerCursor,
  options: { batchSize?: number; maxAwaitTimeMS?: number } = {},
): Promise<CursorBatch> {
  return cursor.nextBatch({ maxAwaitTimeMS: 0, ...options, signals: [new AbortController().signal] });
}
