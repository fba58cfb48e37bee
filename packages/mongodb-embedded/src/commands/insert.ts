// insert: each document is its own commit outside a transaction (one oplog entry each).
import { assertInsertSize, assertValidId } from "../storage/document-limits.js";
import { documentKey } from "../storage/stored-collection.js";
import type { CommandHandler } from "./command-context.js";
import { documentArray, optionalCount, targetCollection } from "./command-args.js";
import { toWriteError, withIdFirst, writeReply, type WriteErrorEntry } from "./write-results.js";

export const insert: CommandHandler = async (request, server) => {
  const name = targetCollection(request);
  const documents = documentArray(request.body, "documents");
  const ordered = request.body.ordered !== false;
  const scope = server.scope(request.transaction, optionalCount(request.body, "maxTimeMS"), request.killed);
  const writeErrors: WriteErrorEntry[] = [];
  let n = 0;
  for (const [index, document] of documents.entries()) {
    try {
      const doc = withIdFirst(document);
      assertValidId(doc._id);
      assertInsertSize(doc);
      const collection = server.collectionForWrite(request.db, name, request.transaction);
      const key = documentKey(doc._id);
      await scope.whenUnlocked(
        collection,
        () => [{ key }],
        () => scope.write(collection, key, null, doc, "insert"),
      );
      n += 1;
    } catch (error) {
      writeErrors.push(toWriteError(index, error, request.transaction !== undefined));
      if (ordered) break;
    }
  }
  return writeReply(n, writeErrors);
};
