// Runs a command in its session context: inside its transaction (autocommit: false), as a
// retryable write (lsid + txnNumber: a repeat returns the first reply without re-executing),
// or on its own.
import type { Document } from "bson";
import { ServerError } from "../errors.js";
import type { ServerState } from "../server-state.js";
import type { CommandRequest } from "./command-context.js";
import { bigintValue } from "./command-args.js";

const RETRYABLE_WRITE_COMMANDS = new Set(["insert", "update", "delete", "findAndModify"]);

/** What mongod lets run inside a multi-document transaction. */
const TRANSACTION_COMMANDS = new Set([
  "find",
  "insert",
  "update",
  "delete",
  "findAndModify",
  "aggregate",
  "distinct",
  "getMore",
  "killCursors",
  "create",
  "createIndexes",
  "commitTransaction",
  "abortTransaction",
]);

export async function runInSession(
  request: CommandRequest,
  server: ServerState,
  run: () => Promise<Document>,
): Promise<Document> {
  const lsid = request.body.lsid as Document | undefined;
  const txnNumber = bigintValue(request.body.txnNumber);
  // Before the command runs, so that $listLocalSessions lists its own session, as mongod does.
  if (lsid) server.sessions.touch(lsid);
  if (request.body.autocommit !== undefined && lsid && txnNumber !== undefined) {
    if (request.name === "commitTransaction" || request.name === "abortTransaction") return run();
    return runInTransaction(request, server, lsid, txnNumber, run);
  }
  if (lsid && txnNumber !== undefined && RETRYABLE_WRITE_COMMANDS.has(request.name)) {
    const previous = server.sessions.retryReply(lsid, txnNumber);
    if (previous) return previous;
    const reply = await run();
    if (reply.ok === 1) server.sessions.rememberRetryReply(lsid, txnNumber, reply);
    return reply;
  }
  return run();
}

async function runInTransaction(
  request: CommandRequest,
  server: ServerState,
  lsid: Document,
  txnNumber: bigint,
  run: () => Promise<Document>,
): Promise<Document> {
  if (!TRANSACTION_COMMANDS.has(request.name)) {
    throw new ServerError(
      263,
      "OperationNotSupportedInTransaction",
      `Cannot run '${request.name}' in a multi-document transaction.`,
    );
  }
  const transaction = server.sessions.transactionFor(lsid, txnNumber, request.body.startTransaction === true);
  request.transaction = transaction;
  try {
    const reply = await run();
    // mongod aborts the transaction when any statement fails.
    if (reply.writeErrors) server.sessions.abort(transaction, "a statement failed");
    return reply;
  } catch (error) {
    server.sessions.abort(transaction, error instanceof Error ? error.message : "a statement failed");
    throw error;
  }
}
