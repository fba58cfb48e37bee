// Which namespaces a stream watches, which records it sees, and which records end it.
// mongod: a collection stream sees its namespace (a rename to or from it included); a database
// stream every collection of the database but system.*; a cluster stream every database but
// admin, config and local. Drop and rename invalidate a collection stream, dropDatabase a
// database stream; a cluster stream is never invalidated.
import { ServerError } from "../errors.js";
import type { ChangeOperation, ChangeRecord } from "./change-record.js";

export type StreamScope =
  { kind: "collection"; db: string; coll: string } | { kind: "database"; db: string } | { kind: "cluster" };

const INTERNAL_DATABASES = new Set(["admin", "config", "local"]);
/** Shown only with showExpandedEvents. */
const EXPANDED_OPERATIONS = new Set<ChangeOperation>(["create", "createIndexes", "dropIndexes", "modify"]);

export function resolveScope(request: {
  db: string;
  coll?: string;
  allChangesForCluster: boolean;
}): StreamScope {
  const { db, coll, allChangesForCluster } = request;
  if (allChangesForCluster) {
    if (db !== "admin" || coll !== undefined) {
      throw new ServerError(
        72,
        "InvalidOptions",
        `A $changeStream with 'allChangesForCluster:true' may only be opened on the 'admin' database, and with no collection name; found ${coll === undefined ? `${db}.$cmd.aggregate` : `${db}.${coll}`}`,
      );
    }
    return { kind: "cluster" };
  }
  if (INTERNAL_DATABASES.has(db)) {
    throw new ServerError(
      73,
      "InvalidNamespace",
      `$changeStream may not be opened on the internal ${db} database`,
    );
  }
  if (coll === undefined) return { kind: "database", db };
  if (coll.startsWith("system.")) {
    throw new ServerError(
      73,
      "InvalidNamespace",
      `$changeStream may not be opened on the internal ${db}.${coll} collection`,
    );
  }
  return { kind: "collection", db, coll };
}

/** The namespace the cursor reports: mongod's for a collection-less aggregate is "<db>.$cmd.aggregate". */
export function cursorNamespace(scope: StreamScope): string {
  if (scope.kind === "collection") return `${scope.db}.${scope.coll}`;
  return `${scope.kind === "database" ? scope.db : "admin"}.$cmd.aggregate`;
}

export function isVisibleInScope(
  scope: StreamScope,
  record: ChangeRecord,
  showExpandedEvents: boolean,
): boolean {
  if (EXPANDED_OPERATIONS.has(record.operationType) && !showExpandedEvents) return false;
  switch (scope.kind) {
    case "collection":
      return touchesCollection(record, scope.db, scope.coll) || isDropOfDatabase(record, scope.db);
    case "database":
      return touchesDatabase(record, scope.db);
    case "cluster":
      return !INTERNAL_DATABASES.has(record.db) && !isSystemCollection(record.coll);
  }
}

export function invalidatesScope(scope: StreamScope, record: ChangeRecord): boolean {
  switch (scope.kind) {
    case "collection":
      return (
        ((record.operationType === "drop" || record.operationType === "rename") &&
          touchesCollection(record, scope.db, scope.coll)) ||
        isDropOfDatabase(record, scope.db)
      );
    case "database":
      return isDropOfDatabase(record, scope.db);
    case "cluster":
      return false;
  }
}

function touchesCollection(record: ChangeRecord, db: string, coll: string): boolean {
  const source = record.db === db && record.coll === coll;
  const target = record.to?.db === db && record.to.coll === coll;
  return source || (record.operationType === "rename" && target);
}

function touchesDatabase(record: ChangeRecord, db: string): boolean {
  if (record.db === db) return !isSystemCollection(record.coll);
  return record.operationType === "rename" && record.to?.db === db && !isSystemCollection(record.to.coll);
}

function isDropOfDatabase(record: ChangeRecord, db: string): boolean {
  return record.operationType === "dropDatabase" && record.db === db;
}

function isSystemCollection(coll: string | undefined): boolean {
  return coll?.startsWith("system.") ?? false;
}
