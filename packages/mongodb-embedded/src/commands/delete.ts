// delete: `limit: 1` removes the first match, `limit: 0` every match; each removal commits on
// its own outside a transaction.
import type { Document } from "bson";
import { collatorFor } from "../query/index.js";
import type { CommandHandler } from "./command-context.js";
import {
  documentArray,
  letVariables,
  numberValue,
  optionalCount,
  optionalDocument,
  targetCollection,
} from "./command-args.js";
import { toWriteError, writeReply, type WriteErrorEntry } from "./write-results.js";

export const deleteCommand: CommandHandler = async (request, server) => {
  const name = targetCollection(request);
  const statements = documentArray(request.body, "deletes");
  const ordered = request.body.ordered !== false;
  const scope = server.scope(request.transaction, optionalCount(request.body, "maxTimeMS"), request.killed);
  // A bad `let` fails the whole command, before any statement runs.
  const variables = letVariables(request);
  const writeErrors: WriteErrorEntry[] = [];
  let n = 0;
  for (const [index, raw] of statements.entries()) {
    try {
      const filter = optionalDocument(raw, "q") ?? {};
      // An invalid collation fails its statement (a write error), as in mongod.
      const strings = collatorFor((raw as Document).collation, "delete.deletes.collation");
      const justOne = numberValue((raw as Document).limit) === 1;
      const collection = server.catalog.collection(request.db, name);
      const select = () => {
        const matches = scope.view.find(collection, filter, strings, variables);
        return justOne ? matches.slice(0, 1) : matches;
      };
      await scope.whenUnlocked(collection, select, (matches) => {
        for (const { key, doc } of matches) {
          scope.write(collection!, key, doc, null, "delete");
          n += 1;
        }
      });
    } catch (error) {
      writeErrors.push(toWriteError(index, error, request.transaction !== undefined));
      if (ordered) break;
    }
  }
  return writeReply(n, writeErrors);
};
