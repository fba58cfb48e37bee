// Collection entity operations of the CRUD spec, called through the official driver. Iterable
// results are read to the end, since cursor creation and errors may be lazy.
import type { AnyBulkWriteOperation, Collection, Document } from "mongodb";
import { driverOptions } from "../driver-options.js";
import { UnsupportedFeature } from "../outcomes.js";
import { resultDocument } from "../result-document.js";
import { openChangeStream } from "./change-stream-operations.js";
import { withoutKeys, type OperationHandler } from "./context.js";

type CollectionHandler = OperationHandler<Collection>;

// rawData (time-series bucket access) is sent only to servers that know it; the driver drops it below 8.2.
const writeOptions = ["comment", "let", "bypassDocumentValidation", "writeConcern", "rawData"];
const modifyOptions = [...writeOptions, "upsert", "hint", "collation", "arrayFilters", "sort"];
const findAndModifyOptions = [...modifyOptions, "projection", "returnDocument", "maxTimeMS"];
const readOptions = ["comment", "collation", "hint", "maxTimeMS", "readConcern", "readPreference", "rawData"];

function options(args: Document, ...positional: string[]): Document {
  return driverOptions(withoutKeys(args, ...positional));
}

/** returnDocument is an enum "Before" | "After" in the test format; the driver wants lower case. */
function findAndModifyOptionsFrom(args: Document, ...positional: string[]): Document {
  const converted = options(args, ...positional);
  if (converted.returnDocument !== undefined) {
    const value = String(converted.returnDocument).toLowerCase();
    if (value !== "before" && value !== "after")
      throw new Error(`returnDocument ${value} is neither Before nor After`);
    converted.returnDocument = value;
  }
  return converted;
}

export const collectionOperations: Record<string, CollectionHandler> = {
  insertOne: {
    args: ["document", ...writeOptions],
    run: async (c, a) => resultDocument(await c.insertOne(a.document as Document, options(a, "document"))),
  },
  insertMany: {
    args: ["documents", "ordered", ...writeOptions],
    run: async (c, a) =>
      resultDocument(await c.insertMany(a.documents as Document[], options(a, "documents"))),
  },
  updateOne: {
    args: ["filter", "update", ...modifyOptions],
    run: async (c, a) =>
      resultDocument(
        await c.updateOne(a.filter as Document, a.update as Document, options(a, "filter", "update")),
      ),
  },
  updateMany: {
    args: ["filter", "update", ...modifyOptions],
    run: async (c, a) =>
      resultDocument(
        await c.updateMany(a.filter as Document, a.update as Document, options(a, "filter", "update")),
      ),
  },
  replaceOne: {
    args: ["filter", "replacement", ...modifyOptions],
    run: async (c, a) =>
      resultDocument(
        await c.replaceOne(
          a.filter as Document,
          a.replacement as Document,
          options(a, "filter", "replacement"),
        ),
      ),
  },
  deleteOne: {
    args: ["filter", "hint", "collation", ...writeOptions],
    run: async (c, a) => resultDocument(await c.deleteOne(a.filter as Document, options(a, "filter"))),
  },
  deleteMany: {
    args: ["filter", "hint", "collation", ...writeOptions],
    run: async (c, a) => resultDocument(await c.deleteMany(a.filter as Document, options(a, "filter"))),
  },
  bulkWrite: {
    args: ["requests", "ordered", ...writeOptions],
    run: async (c, a) => {
      const requests = a.requests as AnyBulkWriteOperation[];
      return resultDocument(await c.bulkWrite(requests, options(a, "requests")));
    },
  },
  findOneAndUpdate: {
    args: ["filter", "update", ...findAndModifyOptions],
    run: async (c, a) =>
      c.findOneAndUpdate(
        a.filter as Document,
        a.update as Document,
        findAndModifyOptionsFrom(a, "filter", "update"),
      ),
  },
  findOneAndReplace: {
    args: ["filter", "replacement", ...findAndModifyOptions],
    run: async (c, a) =>
      c.findOneAndReplace(
        a.filter as Document,
        a.replacement as Document,
        findAndModifyOptionsFrom(a, "filter", "replacement"),
      ),
  },
  findOneAndDelete: {
    args: ["filter", ...findAndModifyOptions],
    run: async (c, a) => c.findOneAndDelete(a.filter as Document, findAndModifyOptionsFrom(a, "filter")),
  },
  find: {
    args: [
      "filter",
      "sort",
      "skip",
      "limit",
      "batchSize",
      "projection",
      "let",
      "allowDiskUse",
      ...readOptions,
    ],
    run: async (c, a) => c.find((a.filter as Document | undefined) ?? {}, options(a, "filter")).toArray(),
  },
  findOne: {
    args: ["filter", "sort", "skip", "projection", "let", "allowDiskUse", ...readOptions],
    run: async (c, a) => c.findOne((a.filter as Document | undefined) ?? {}, options(a, "filter")),
  },
  aggregate: {
    args: [
      "pipeline",
      "batchSize",
      "let",
      "allowDiskUse",
      "bypassDocumentValidation",
      "writeConcern",
      ...readOptions,
    ],
    run: async (c, a) => c.aggregate(a.pipeline as Document[], options(a, "pipeline")).toArray(),
  },
  countDocuments: {
    args: ["filter", "skip", "limit", ...readOptions],
    run: async (c, a) => c.countDocuments(a.filter as Document, options(a, "filter")),
  },
  estimatedDocumentCount: {
    args: readOptions,
    run: async (c, a) => c.estimatedDocumentCount(options(a)),
  },
  count: {
    args: ["filter", "skip", "limit", ...readOptions],
    run: async (c, a) => c.count(a.filter as Document, options(a, "filter")),
  },
  distinct: {
    args: ["fieldName", "filter", ...readOptions],
    run: async (c, a) =>
      c.distinct(String(a.fieldName), a.filter as Document, options(a, "fieldName", "filter")),
  },
  createChangeStream: {
    args: changeStreamArgs(),
    run: async (c, a) =>
      openChangeStream(c.watch((a.pipeline as Document[] | undefined) ?? [], options(a, "pipeline"))),
  },
  rename: {
    args: ["to", "dropTarget"],
    run: async (c, a) => {
      await c.rename(String(a.to), options(a, "to"));
      return undefined;
    },
  },
  createIndex: {
    args: ["keys", "name", "unique", "sparse", "expireAfterSeconds", "partialFilterExpression", "comment"],
    run: async (c, a) => c.createIndex(a.keys as Document, options(a, "keys")),
  },
  dropIndex: {
    args: ["name", "comment"],
    run: async (c, a) => resultDocument(await c.dropIndex(String(a.name), options(a, "name"))),
  },
  listIndexes: {
    args: ["batchSize", "comment"],
    run: async (c, a) => c.listIndexes(options(a)).toArray(),
  },
};

export function changeStreamArgs(): string[] {
  return [
    "pipeline",
    "batchSize",
    "comment",
    "fullDocument",
    "fullDocumentBeforeChange",
    "resumeAfter",
    "startAfter",
    "startAtOperationTime",
    "maxAwaitTimeMS",
    "showExpandedEvents",
    "collation",
  ];
}

export function collectionOperation(name: string): CollectionHandler {
  const handler = collectionOperations[name];
  if (!handler) throw new UnsupportedFeature(`collection operation ${name}`);
  return handler;
}
