// listDatabases and dropDatabase.
import type { Document } from "bson";
import { matchesFilter } from "../query/index.js";
import type { CommandHandler } from "./command-context.js";
import { optionalDocument, truthy } from "./command-args.js";

export const listDatabases: CommandHandler = (request, server) => {
  const filter = optionalDocument(request.body, "filter") ?? {};
  const nameOnly = truthy(request.body.nameOnly);
  const databases: Document[] = server.catalog
    .databaseNames()
    .map((name) => (nameOnly ? { name } : { name, sizeOnDisk: 0, empty: false }))
    .filter((entry) => matchesFilter(entry, filter));
  return nameOnly ? { databases, ok: 1 } : { databases, totalSize: 0, totalSizeMb: 0, ok: 1 };
};

export const dropDatabase: CommandHandler = (request, server) => {
  server.catalog.dropDatabase(request.db);
  return { dropped: request.db, ok: 1 };
};
