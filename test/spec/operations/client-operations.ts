// Client entity operations: cluster-wide change streams, client bulk write, database listing.
import type { AnyClientBulkWriteModel, Document, MongoClient } from "mongodb";
import { driverOptions } from "../driver-options.js";
import { resultDocument } from "../result-document.js";
import { openChangeStream } from "./change-stream-operations.js";
import { changeStreamArgs } from "./collection-operations.js";
import { withoutKeys, type OperationHandler } from "./context.js";

function options(args: Document, ...positional: string[]): Document {
  return driverOptions(withoutKeys(args, ...positional));
}

/** Test files nest each model under its kind ({ insertOne: {...} }); the driver wants { name, ... }. */
function clientBulkWriteModels(models: Document[]): AnyClientBulkWriteModel<Document>[] {
  return models.map((model) => {
    const [name] = Object.keys(model);
    if (!name) throw new Error("a clientBulkWrite model needs a kind key");
    return { name, ...(model[name] as Document) } as AnyClientBulkWriteModel<Document>;
  });
}

export const clientOperations: Record<string, OperationHandler<MongoClient>> = {
  createChangeStream: {
    args: changeStreamArgs(),
    run: async (client, a) =>
      openChangeStream(client.watch((a.pipeline as Document[] | undefined) ?? [], options(a, "pipeline"))),
  },
  clientBulkWrite: {
    args: [
      "models",
      "ordered",
      "verboseResults",
      "writeConcern",
      "comment",
      "let",
      "bypassDocumentValidation",
    ],
    run: async (client, a) =>
      resultDocument(
        await client.bulkWrite(clientBulkWriteModels(a.models as Document[]), options(a, "models")),
      ),
  },
  listDatabases: {
    args: ["filter", "nameOnly", "authorizedDatabases"],
    run: async (client, a) => (await client.db("admin").admin().listDatabases(options(a))).databases,
  },
  listDatabaseNames: {
    args: ["filter", "authorizedDatabases"],
    run: async (client, a) =>
      (
        await client
          .db("admin")
          .admin()
          .listDatabases({ ...options(a), nameOnly: true })
      ).databases.map((d) => d.name),
  },
  close: {
    args: [],
    run: async (client) => {
      await client.close();
      return undefined;
    },
  },
};
