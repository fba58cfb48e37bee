// createIndexes, listIndexes, dropIndexes. Only ascending/descending keys are supported:
// the embedded server uses indexes for equality lookups and unique constraints.
import { Int32, type Document } from "bson";
import { ServerError, ErrorCode } from "../errors.js";
import { duplicateKey } from "../storage/document-limits.js";
import type { IndexSpec } from "../storage/secondary-index.js";
import { ID_INDEX_NAME, type StoredCollection } from "../storage/stored-collection.js";
import { ArrayCursor } from "./array-cursor.js";
import type { CommandHandler } from "./command-context.js";
import {
  assertSimpleCollation,
  documentArray,
  numberValue,
  targetCollection,
  truthy,
} from "./command-args.js";
import { assertLocalReadConcern, existingCollection, visibleCollection } from "./collections.js";
import { firstBatchReply } from "./cursor-replies.js";
import { canonicalKey } from "../storage/canonical-key.js";

const IGNORED_INDEX_OPTIONS = new Set(["key", "name", "unique", "v", "background", "ns"]);

export const createIndexes: CommandHandler = (request, server) => {
  const name = targetCollection(request);
  const specs = documentArray(request.body, "indexes").map(parseIndexSpec);
  if (request.transaction) assertLocalReadConcern(request);
  const createdCollectionAutomatically = !visibleCollection(request, server, name);
  const collection = server.collectionForWrite(request.db, name, request.transaction);
  const numIndexesBefore = collection.indexSpecs().length;
  const toBuild = specs.filter((spec) => !alreadyExists(collection, spec));
  if (toBuild.length > 0 && request.transaction) assertCreatedBy(collection, request.transaction);
  for (const spec of toBuild) buildIndex(collection, spec);
  // A pending collection's indexes are the creating transaction's own; not reported.
  if (toBuild.length > 0 && !collection.pendingOwner) {
    server.catalog.commitCatalogChange(
      toBuild.map(() => ({
        operationType: "createIndexes",
        db: request.db,
        coll: name,
        imagesRecorded: false,
      })),
    );
  }
  const reply: Document = {
    numIndexesBefore,
    numIndexesAfter: collection.indexSpecs().length,
    createdCollectionAutomatically,
  };
  if (toBuild.length === 0) reply.note = "all indexes already exist";
  return { ...reply, ok: 1 };
};

/** In a transaction, new indexes only on a collection the same transaction created. */
function assertCreatedBy(collection: StoredCollection, transaction: object): void {
  if (collection.pendingOwner === transaction) return;
  throw new ServerError(
    ErrorCode.OperationNotSupportedInTransaction,
    "OperationNotSupportedInTransaction",
    `Cannot create new indexes on existing collection ${collection.ns} in a multi-document transaction.`,
  );
}

function parseIndexSpec(raw: Document): IndexSpec {
  const key = raw.key as Document | undefined;
  if (!key || typeof key !== "object" || Object.keys(key).length === 0) {
    throw new ServerError(
      ErrorCode.BadValue,
      "BadValue",
      "index specification must have a non-empty 'key' document",
    );
  }
  for (const [field, direction] of Object.entries(key)) {
    const n = numberValue(direction);
    if (n === undefined || n === 0) {
      throw new ServerError(
        ErrorCode.NotImplemented,
        "NotImplemented",
        `index type ${JSON.stringify(direction)} on '${field}' is not supported`,
      );
    }
  }
  // Index keys here are binary; a collated index would need collation-ordered keys.
  assertSimpleCollation(raw.collation, "createIndexes.indexes.collation");
  const name = typeof raw.name === "string" ? raw.name : defaultIndexName(key);
  const options: Document = {};
  for (const [option, value] of Object.entries(raw))
    if (!IGNORED_INDEX_OPTIONS.has(option)) options[option] = value;
  return { name, key, unique: truthy(raw.unique), options };
}

/** mongod's generated name: "a_1_b_-1". */
function defaultIndexName(key: Document): string {
  return Object.entries(key)
    .map(([field, direction]) => `${field}_${numberValue(direction) ?? String(direction)}`)
    .join("_");
}

function alreadyExists(collection: StoredCollection, spec: IndexSpec): boolean {
  const wantedKey = canonicalKey(spec.key);
  for (const existing of collection.indexSpecs()) {
    const sameKey = canonicalKey(existing.key) === wantedKey;
    const sameOptions =
      existing.unique === spec.unique && canonicalKey(existing.options) === canonicalKey(spec.options);
    if (existing.name === spec.name) {
      if (sameKey && (sameOptions || existing.name === ID_INDEX_NAME)) return true;
      if (!sameKey) {
        throw new ServerError(
          ErrorCode.IndexKeySpecsConflict,
          "IndexKeySpecsConflict",
          `An existing index has the same name as the requested index but different keys: ${spec.name}`,
        );
      }
      throw new ServerError(
        ErrorCode.IndexOptionsConflict,
        "IndexOptionsConflict",
        `An equivalent index already exists with the same name but different options: ${spec.name}`,
      );
    }
    if (sameKey && sameOptions) {
      throw new ServerError(
        ErrorCode.IndexOptionsConflict,
        "IndexOptionsConflict",
        `Index already exists with a different name: ${existing.name}`,
      );
    }
  }
  return false;
}

/** Builds the index; a unique index over existing duplicates fails with E11000 and is not kept. */
function buildIndex(collection: StoredCollection, spec: IndexSpec): void {
  const index = collection.addIndex(spec);
  if (!spec.unique) return;
  for (const key of collection.keys()) {
    const doc = collection.read(key);
    if (doc && index.holdersOfSameKey(key, doc).length > 0) {
      collection.dropIndex(spec.name);
      throw duplicateKey(collection, spec.name, spec.key, index.keyValue(doc));
    }
  }
}

export const listIndexes: CommandHandler = (request, server) => {
  const name = targetCollection(request);
  const collection = existingCollection(visibleCollection(request, server, name), request.db, name);
  const entries = collection.indexSpecs().map((spec) => ({
    v: new Int32(2),
    key: spec.key,
    name: spec.name,
    ...(spec.unique && spec.name !== ID_INDEX_NAME ? { unique: true } : {}),
    ...spec.options,
  }));
  const cursor = new ArrayCursor(collection.ns, entries);
  return firstBatchReply(server, cursor, cursor.takeBatch(undefined));
};

export const dropIndexes: CommandHandler = (request, server) => {
  const name = targetCollection(request);
  const collection = existingCollection(server.catalog.collection(request.db, name), request.db, name);
  const nIndexesWas = collection.indexSpecs().length;
  const names = indexNamesToDrop(collection, request.body.index);
  for (const indexName of names) collection.dropIndex(indexName);
  if (names.length > 0) {
    server.catalog.commitCatalogChange(
      names.map(() => ({ operationType: "dropIndexes", db: request.db, coll: name, imagesRecorded: false })),
    );
  }
  return { nIndexesWas, ok: 1 };
};

function indexNamesToDrop(collection: StoredCollection, target: unknown): string[] {
  if (target === "*") return collection.indexes().map((index) => index.spec.name);
  const requested = Array.isArray(target) ? target : [target];
  return requested.map((wanted) => {
    const spec = collection
      .indexSpecs()
      .find((s) =>
        typeof wanted === "string" ? s.name === wanted : canonicalKey(s.key) === canonicalKey(wanted),
      );
    if (!spec) {
      throw new ServerError(
        27,
        "IndexNotFound",
        `index not found with name [${typeof wanted === "string" ? wanted : JSON.stringify(wanted)}]`,
      );
    }
    if (spec.name === ID_INDEX_NAME) {
      throw new ServerError(ErrorCode.InvalidOptions, "InvalidOptions", "cannot drop _id index");
    }
    return spec.name;
  });
}
