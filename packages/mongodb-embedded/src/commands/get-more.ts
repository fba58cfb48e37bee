// getMore and killCursors over the cursor registry. A change-stream getMore waits up to its
// maxTimeMS (default 1 s) for new events, as an awaitData cursor does.
import { Long, type Document } from "bson";
import type { CommandHandler } from "./command-context.js";
import { bigintValue, optionalCount } from "./command-args.js";
import { codeNameOf } from "./code-names.js";
import { cursorReply } from "./cursor-replies.js";
import { ServerError, ErrorCode, interrupted } from "../errors.js";

const DEFAULT_AWAIT_MS = 1_000;

export const getMore: CommandHandler = async (request, server) => {
  const id = bigintValue(request.body.getMore);
  if (id === undefined)
    throw new ServerError(ErrorCode.TypeMismatch, "TypeMismatch", "getMore needs a cursor id");
  const cursor = server.cursors.get(id);
  const failure = server.failPoints.triggerGetMore();
  if (failure) {
    const code = failure.errorCode;
    throw new ServerError(
      code,
      codeNameOf(code),
      "Failing getMore via 'failGetMoreAfterCursorCheckout' failpoint",
    );
  }
  const batch = await cursor.nextBatch({
    batchSize: optionalCount(request.body, "batchSize"),
    maxAwaitTimeMS: optionalCount(request.body, "maxTimeMS") ?? DEFAULT_AWAIT_MS,
    signals: request.killed ? [request.connection.signal, request.killed] : [request.connection.signal],
  });
  // killSessions closed the cursor too; the getMore it cut short fails, as on mongod.
  if (request.killed?.aborted) throw interrupted();
  if (batch.exhausted) server.cursors.kill(id);
  return cursorReply(Long.fromBigInt(id), cursor.ns, batch, false);
};

export const killCursors: CommandHandler = (request, server) => {
  const ids = Array.isArray(request.body.cursors) ? (request.body.cursors as unknown[]) : [];
  const cursorsKilled: Long[] = [];
  const cursorsNotFound: Long[] = [];
  for (const raw of ids) {
    const id = bigintValue(raw);
    if (id === undefined) continue;
    (server.cursors.kill(id) ? cursorsKilled : cursorsNotFound).push(Long.fromBigInt(id));
  }
  const reply: Document = { cursorsKilled, cursorsNotFound, cursorsAlive: [], cursorsUnknown: [], ok: 1 };
  return reply;
};
