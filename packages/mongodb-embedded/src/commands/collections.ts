// Collection-level catalog commands: create, collMod, drop, renameCollection, listCollections.
import type { Document } from "bson";
import { matchesFilter, validationOptions, VALIDATION_OPTIONS } from "../query/index.js";
import { ServerError, ErrorCode } from "../errors.js";
import { canonicalKey } from "../storage/canonical-key.js";
import type { StoredCollection } from "../storage/stored-collection.js";
import { ArrayCursor } from "./array-cursor.js";
import type { CommandHandler, CommandRequest } from "./command-context.js";
import type { ServerState } from "../server-state.js";
import { optionalCount, optionalDocument, targetCollection, truthy } from "./command-args.js";
import { firstBatchReply } from "./cursor-replies.js";
import { DEFAULT_FIRST_BATCH_SIZE } from "./find.js";
import { viewOptions } from "./views.js";

/** Options we store and report; anything that would change behaviour we do not emulate is refused. */
const SUPPORTED_CREATE_OPTIONS = new Set([
  "changeStreamPreAndPostImages",
  "collation",
  ...VALIDATION_OPTIONS,
  "writeConcern",
  "comment",
]);
const UNSUPPORTED_CREATE_OPTIONS = ["capped", "timeseries", "clusteredIndex"];

export const create: CommandHandler = (request, server) => {
  const name = targetCollection(request);
  const options: Document = {};
  for (const [field, value] of Object.entries(request.body)) {
    if (field === request.name || field.startsWith("$") || field === "lsid" || field === "txnNumber")
      continue;
    if (UNSUPPORTED_CREATE_OPTIONS.includes(field) && value !== false) {
      throw new ServerError(
        ErrorCode.NotImplemented,
        "NotImplemented",
        `create option '${field}' is not supported`,
      );
    }
    if (SUPPORTED_CREATE_OPTIONS.has(field) && field !== "writeConcern" && field !== "comment")
      options[field] = value;
  }
  validationOptions(options);
  Object.assign(options, viewOptions(request.body));
  if (request.transaction) assertLocalReadConcern(request);
  const existing = visibleCollection(request, server, name);
  // mongod 7.0 answers ok to a create that repeats an existing collection's options.
  if (existing && canonicalKey(existing.options) === canonicalKey(options)) return { ok: 1 };
  if (existing) {
    throw new ServerError(
      ErrorCode.NamespaceExists,
      "NamespaceExists",
      `namespace ${existing.ns} already exists, but with different options`,
    );
  }
  const created = server.catalog.createCollection(request.db, name, options, request.transaction);
  request.transaction?.createdCollections.push(created);
  return { ok: 1 };
};

/** The collection as the request's transaction (or a reader outside any) sees it. */
export function visibleCollection(
  request: CommandRequest,
  server: ServerState,
  name: string,
): StoredCollection | undefined {
  const collection = server.catalog.collection(request.db, name);
  return collection && server.catalog.isVisible(collection, request.transaction) ? collection : undefined;
}

/** mongod creates collections and indexes in a transaction only under readConcern "local". */
export function assertLocalReadConcern(request: CommandRequest): void {
  const level = request.transaction?.readConcernLevel ?? "local";
  if (level === "local") return;
  throw new ServerError(
    ErrorCode.InvalidOptions,
    "InvalidOptions",
    `Cannot run '${request.name}' in a multi-document transaction with readConcern level '${level}'`,
  );
}

const COLL_MOD_OPTIONS = new Set([
  "changeStreamPreAndPostImages",
  ...VALIDATION_OPTIONS,
  "writeConcern",
  "comment",
  "lsid",
  "txnNumber",
]);

export const collMod: CommandHandler = (request, server) => {
  const collection = existingCollection(
    server.catalog.collection(request.db, targetCollection(request)),
    request.db,
    targetCollection(request),
  );
  const images = optionalDocument(request.body, "changeStreamPreAndPostImages");
  for (const field of Object.keys(request.body)) {
    if (COLL_MOD_OPTIONS.has(field) || field === request.name) continue;
    if (field.startsWith("$")) continue;
    throw new ServerError(
      ErrorCode.NotImplemented,
      "NotImplemented",
      `collMod option '${field}' is not supported`,
    );
  }
  // As mongod's collMod: the options given replace the stored ones; the others stay.
  collection.options = {
    ...collection.options,
    ...(images ? { changeStreamPreAndPostImages: images } : {}),
    ...validationOptions(request.body),
  };
  server.catalog.commitCatalogChange([
    { operationType: "modify", db: collection.db, coll: collection.name, imagesRecorded: false },
  ]);
  return { ok: 1 };
};

export const drop: CommandHandler = (request, server) => {
  const name = targetCollection(request);
  const collection = server.catalog.collection(request.db, name);
  // Since 7.0 dropping a collection that does not exist succeeds.
  if (!collection) return { ok: 1 };
  const nIndexesWas = collection.indexSpecs().length;
  server.catalog.dropCollection(request.db, name);
  return { nIndexesWas, ns: collection.ns, ok: 1 };
};

export const renameCollection: CommandHandler = (request, server) => {
  const from = splitNamespace(request.body.renameCollection);
  const to = splitNamespace(request.body.to);
  const source = server.catalog.collection(from.db, from.coll);
  if (!source) {
    throw new ServerError(
      ErrorCode.NamespaceNotFound,
      "NamespaceNotFound",
      `Source collection ${from.db}.${from.coll} does not exist`,
    );
  }
  if (server.catalog.collection(to.db, to.coll)) {
    if (!truthy(request.body.dropTarget)) {
      throw new ServerError(ErrorCode.NamespaceExists, "NamespaceExists", "target namespace exists");
    }
    server.catalog.dropCollection(to.db, to.coll);
  }
  server.catalog.renameCollection(source, to.db, to.coll);
  return { ok: 1 };
};

export const listCollections: CommandHandler = (request, server) => {
  const filter = optionalDocument(request.body, "filter") ?? {};
  const nameOnly = truthy(request.body.nameOnly);
  const entries = server.catalog
    .collections(request.db)
    .filter((collection) => server.catalog.isVisible(collection, request.transaction))
    .map((collection) => collectionInfo(collection))
    .filter((info) => matchesFilter(info, filter))
    .map((info) => (nameOnly ? { name: info.name, type: info.type } : info));
  const cursor = new ArrayCursor(`${request.db}.$cmd.listCollections`, entries);
  const batchSize = optionalCount(optionalDocument(request.body, "cursor") ?? {}, "batchSize");
  return firstBatchReply(server, cursor, cursor.takeBatch(batchSize ?? DEFAULT_FIRST_BATCH_SIZE));
};

function collectionInfo(collection: StoredCollection): Document {
  if (collection.isView)
    return { name: collection.name, type: "view", options: collection.options, info: { readOnly: true } };
  return {
    name: collection.name,
    type: "collection",
    options: collection.options,
    info: { readOnly: false, uuid: collection.uuid },
    idIndex: { v: 2, key: { _id: 1 }, name: "_id_" },
  };
}

export function existingCollection(
  collection: StoredCollection | undefined,
  db: string,
  name: string,
): StoredCollection {
  if (!collection)
    throw new ServerError(
      ErrorCode.NamespaceNotFound,
      "NamespaceNotFound",
      `ns does not exist: ${db}.${name}`,
    );
  return collection;
}

function splitNamespace(value: unknown): { db: string; coll: string } {
  const text = typeof value === "string" ? value : "";
  const dot = text.indexOf(".");
  if (dot <= 0 || dot === text.length - 1) {
    throw new ServerError(
      ErrorCode.InvalidNamespace,
      "InvalidNamespace",
      `Invalid namespace specified '${text}'`,
    );
  }
  return { db: text.slice(0, dot), coll: text.slice(dot + 1) };
}
