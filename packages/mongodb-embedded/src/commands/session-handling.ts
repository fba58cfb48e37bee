// Runs a command in its session context: inside its transaction (autocommit: false), as a
// retryable write (lsid + txnNumber: a repeat returns the first reply without re-executing),
// or on its own.
import type { Document } from "bson";
import { ServerError } from "../errors.js";
import type { ServerState } from "../server-state.js";
import type { OperationScope } from "../sessions/operation-scope.js";
import type { CommandRequest } from "./command-context.js";
import { bigintValue, optionalCount } from "./command-args.js";
import { codeNameOf } from "./code-names.js";

const RETRYABLE_WRITE_COMMANDS = new Set(["insert", "update", "delete", "findAndModify", "bulkWrite"]);

/** What mongod lets run inside a multi-document transaction. */
const TRANSACTION_COMMANDS = new Set([
  "find",
  "insert",
  "update",
  "delete",
  "bulkWrite",
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
  if (!lsid) return run();
  // Before the command runs, so that $listLocalSessions lists its own session, as mongod does.
  server.sessions.touch(lsid);
  const reply = await runWithSession(request, server, lsid, txnNumber, run);
  const cursorId = openedCursorId(reply);
  if (cursorId) server.sessions.ownCursor(lsid, cursorId, (id) => server.cursors.find(id) !== undefined);
  return reply;
}

function runWithSession(
  request: CommandRequest,
  server: ServerState,
  lsid: Document,
  txnNumber: bigint | undefined,
  run: () => Promise<Document>,
): Promise<Document> {
  if (txnNumber === undefined) return run();
  if (request.body.autocommit !== undefined) {
    if (request.name === "commitTransaction" || request.name === "abortTransaction") return run();
    return runInTransaction(request, server, lsid, txnNumber, run);
  }
  if (RETRYABLE_WRITE_COMMANDS.has(request.name))
    return runRetryableWrite(request, server, lsid, txnNumber, run);
  return run();
}

async function runRetryableWrite(
  request: CommandRequest,
  server: ServerState,
  lsid: Document,
  txnNumber: bigint,
  run: () => Promise<Document>,
): Promise<Document> {
  const previous = server.sessions.retryReply(lsid, txnNumber);
  if (previous) return previous;
  request.executedStatements = server.sessions.executedStatements(lsid, txnNumber);
  let failedBeforeCommit = false;
  request.beforeWriteCommit = () => {
    const failure = server.failPoints.triggerTransactionalWrite();
    if (!failure) return;
    // As mongod's (transaction_participant.cpp): the socket closes first, the command goes on.
    if (failure.closeConnection) request.connection.destroy();
    const code = failure.failBeforeCommitExceptionCode;
    if (code === undefined) return;
    failedBeforeCommit = true;
    throw new ServerError(
      code,
      codeNameOf(code),
      "Failing write via 'onPrimaryTransactionalWrite' failpoint",
    );
  };
  const reply = await run();
  // A statement the fail point failed was never executed: its retry must run it.
  if (reply.ok === 1 && !failedBeforeCommit) server.sessions.rememberRetryReply(lsid, txnNumber, reply);
  return reply;
}

/**
 * The reads and writes of a write command: in its transaction or as its retryable write, each
 * document checked against its collection's validator unless the command bypasses validation.
 */
export function writeScope(request: CommandRequest, server: ServerState): OperationScope {
  const maxTimeMS = optionalCount(request.body, "maxTimeMS");
  return server.scope(request.transaction, maxTimeMS, request.killed, {
    beforeCommit: request.beforeWriteCommit,
    bypassDocumentValidation: request.body.bypassDocumentValidation === true,
  });
}

/** The id of a cursor the reply leaves open (a first batch that did not exhaust it). */
function openedCursorId(reply: Document): bigint | undefined {
  const id = bigintValue((reply.cursor as Document | undefined)?.id);
  return id === undefined || id === 0n || !("firstBatch" in (reply.cursor as Document)) ? undefined : id;
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
  if (request.body.startTransaction === true) {
    const level = (request.body.readConcern as Document | undefined)?.level;
    transaction.readConcernLevel = typeof level === "string" ? level : "local";
  }
  request.transaction = transaction;
  try {
    const reply = await run();
    // mongod aborts the transaction when any statement fails (bulkWrite counts them in nErrors).
    if (reply.writeErrors || Number(reply.nErrors ?? 0) > 0)
      server.sessions.abort(transaction, "a statement failed");
    return reply;
  } catch (error) {
    server.sessions.abort(transaction, error instanceof Error ? error.message : "a statement failed");
    throw error;
  }
}
