// Database entity operations: aggregate, runCommand, collection management, change streams.
import type { Db, Document } from "mongodb";
import { driverOptions } from "../driver-options.js";
import { openChangeStream } from "./change-stream-operations.js";
import { changeStreamArgs } from "./collection-operations.js";
import { withoutKeys, type OperationHandler } from "./context.js";

function options(args: Document, ...positional: string[]): Document {
  return driverOptions(withoutKeys(args, ...positional));
}

export const databaseOperations: Record<string, OperationHandler<Db>> = {
  aggregate: {
    args: [
      "pipeline",
      "batchSize",
      "let",
      "allowDiskUse",
      "comment",
      "maxTimeMS",
      "readConcern",
      "writeConcern",
      "rawData",
    ],
    run: async (db, a) => db.aggregate(a.pipeline as Document[], options(a, "pipeline")).toArray(),
  },
  runCommand: {
    // commandName exists for languages whose maps lose key order; the parsed document keeps it.
    args: ["command", "commandName", "readPreference"],
    run: async (db, a) => db.command(a.command as Document, options(a, "command", "commandName")),
  },
  createCollection: {
    args: [
      "collection",
      "viewOn",
      "pipeline",
      "validator",
      "capped",
      "size",
      "max",
      "collation",
      "changeStreamPreAndPostImages",
      "clusteredIndex",
      "timeseries",
      "expireAfterSeconds",
      "comment",
    ],
    run: async (db, a) => {
      await db.createCollection(String(a.collection), options(a, "collection"));
      return undefined;
    },
  },
  dropCollection: {
    args: ["collection", "comment"],
    run: async (db, a) => db.dropCollection(String(a.collection), options(a, "collection")),
  },
  listCollections: {
    args: ["filter", "batchSize", "comment", "nameOnly", "authorizedCollections"],
    run: async (db, a) =>
      db.listCollections((a.filter as Document | undefined) ?? {}, options(a, "filter")).toArray(),
  },
  listCollectionNames: {
    args: ["filter", "batchSize", "comment"],
    run: async (db, a) => {
      const collections = await db
        .listCollections((a.filter as Document | undefined) ?? {}, {
          ...options(a, "filter"),
          nameOnly: true,
        })
        .toArray();
      return collections.map((collection) => collection.name);
    },
  },
  modifyCollection: {
    // No driver helper exists for collMod; the test format's arguments are the command's fields.
    args: ["collection", "validator", "validationLevel", "validationAction", "changeStreamPreAndPostImages"],
    run: async (db, a) => {
      const { collection, session, ...fields } = a;
      return db.command({ collMod: collection, ...fields }, session ? { session } : {});
    },
  },
  createChangeStream: {
    args: changeStreamArgs(),
    run: async (db, a) =>
      openChangeStream(db.watch((a.pipeline as Document[] | undefined) ?? [], options(a, "pipeline"))),
  },
};
