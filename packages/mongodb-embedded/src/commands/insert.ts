// insert: each document is its own commit outside a transaction (one oplog entry each).
import type { Document } from "bson";
import type { ServerState } from "../server-state.js";
import type { OperationScope } from "../sessions/operation-scope.js";
import { assertInsertSize, assertValidId } from "../storage/document-limits.js";
import { documentKey } from "../storage/stored-collection.js";
import type { CommandHandler } from "./command-context.js";
import { writeScope } from "./session-handling.js";
import { documentArray, targetCollection } from "./command-args.js";
import { toWriteError, withIdFirst, writeReply, type WriteErrorEntry } from "./write-results.js";
import { onceEach, runStatements } from "./write-statements.js";

export const insert: CommandHandler = async (request, server) => {
  const name = targetCollection(request);
  const documents = documentArray(request.body, "documents");
  const ordered = request.body.ordered !== false;
  const scope = writeScope(request, server);
  const writeErrors: WriteErrorEntry[] = [];
  let n = 0;
  await runStatements(
    documents,
    ordered,
    async (document, index) => {
      const insertOnce = async () => (
        await insertDocument(server, scope, request.db, name, document),
        { n: 1 }
      );
      n += (await onceEach(request.executedStatements, index, insertOnce, () => true)).n;
    },
    (index, error) => writeErrors.push(toWriteError(index, error, request.transaction !== undefined)),
    request.killed,
  );
  return writeReply(n, writeErrors);
};

/** One document inserted into `db.name` (created on first write), `_id` first. */
export async function insertDocument(
  server: ServerState,
  scope: OperationScope,
  db: string,
  name: string,
  document: Document,
): Promise<void> {
  const doc = withIdFirst(document);
  assertValidId(doc._id);
  assertInsertSize(doc);
  const collection = server.collectionForWrite(db, name, scope.transaction);
  const key = documentKey(doc._id);
  await scope.whenUnlocked(
    collection,
    () => [{ key }],
    () => scope.write(collection, key, null, doc, "insert"),
  );
}
