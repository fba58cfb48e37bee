// delete: `limit: 1` removes the first match, `limit: 0` every match; each removal commits on
// its own outside a transaction.
import type { Document } from "bson";
import { collatorFor } from "../query/index.js";
import type { ServerState } from "../server-state.js";
import type { OperationScope } from "../sessions/operation-scope.js";
import type { CommandHandler } from "./command-context.js";
import { writeScope } from "./session-handling.js";
import {
  documentArray,
  letVariables,
  numberValue,
  optionalDocument,
  targetCollection,
} from "./command-args.js";
import { toWriteError, writeReply, type WriteErrorEntry } from "./write-results.js";
import { onceEach, runStatements } from "./write-statements.js";

export interface DeleteStatement {
  filter: Document;
  /** Only the first match (limit: 1), or every one. */
  justOne: boolean;
  /** The statement's collation document, as sent (validated when the statement runs). */
  collation?: unknown;
  /** Where a bad collation is reported: "delete.deletes.collation", say. */
  collationField: string;
  /** The command's `let` variables. */
  variables?: Document;
}

export const deleteCommand: CommandHandler = async (request, server) => {
  const name = targetCollection(request);
  const statements = documentArray(request.body, "deletes");
  const ordered = request.body.ordered !== false;
  const scope = writeScope(request, server);
  // A bad `let` fails the whole command, before any statement runs.
  const variables = letVariables(request);
  const writeErrors: WriteErrorEntry[] = [];
  let n = 0;
  await runStatements(
    statements,
    ordered,
    async (raw, index) => {
      const statement = {
        filter: optionalDocument(raw, "q") ?? {},
        justOne: numberValue((raw as Document).limit) === 1,
        collation: (raw as Document).collation,
        collationField: "delete.deletes.collation",
        variables,
      };
      const deleteOnce = async () => ({
        n: await runDeleteStatement(server, scope, request.db, name, statement),
      });
      n += (await onceEach(request.executedStatements, index, deleteOnce, (outcome) => outcome.n > 0)).n;
    },
    (index, error) => writeErrors.push(toWriteError(index, error, request.transaction !== undefined)),
    request.killed,
  );
  return writeReply(n, writeErrors);
};

/** Removes what the statement matches in `db.name`; returns how many documents. */
export async function runDeleteStatement(
  server: ServerState,
  scope: OperationScope,
  db: string,
  name: string,
  statement: DeleteStatement,
): Promise<number> {
  // An invalid collation fails its statement (a write error), as in mongod.
  const strings = collatorFor(statement.collation, statement.collationField);
  const collection = server.catalog.writableCollection(db, name);
  const select = () => {
    const matches = scope.view.find(collection, statement.filter, strings, statement.variables);
    return statement.justOne ? matches.slice(0, 1) : matches;
  };
  return scope.whenUnlocked(collection, select, (matches) => {
    for (const { key, doc } of matches) scope.write(collection!, key, doc, null, "delete");
    return matches.length;
  });
}
