// Cursor replies: `{ cursor: { firstBatch | nextBatch, id, ns, postBatchResumeToken? }, ok: 1 }`.
// The id is 0 once the cursor is exhausted (and it is then forgotten).
import { Long, type Document } from "bson";
import type { CursorBatch, ServerCursor } from "../cursor.js";
import type { ServerState } from "../server-state.js";

export function cursorReply(id: Long, ns: string, batch: CursorBatch, first: boolean): Document {
  const cursor: Document = {
    [first ? "firstBatch" : "nextBatch"]: batch.documents,
    id: batch.exhausted ? Long.ZERO : id,
    ns,
  };
  if (batch.postBatchResumeToken) cursor.postBatchResumeToken = batch.postBatchResumeToken;
  return { cursor, ok: 1 };
}

/** Registers the cursor unless its first batch already exhausted it, and answers the batch. */
export function firstBatchReply(
  server: ServerState,
  cursor: ServerCursor,
  batch: CursorBatch,
  noTimeout = false,
): Document {
  if (batch.exhausted) {
    cursor.close();
    return cursorReply(Long.ZERO, cursor.ns, batch, true);
  }
  return cursorReply(server.cursors.register(cursor, noTimeout), cursor.ns, batch, true);
}
