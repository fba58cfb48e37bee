// The contract between the command layer (which owns the cursor registry and answers
// getMore/killCursors) and whatever produces results: a plain query cursor or a change stream.
import type { Document, Long } from "bson";

export interface CursorBatch {
  documents: Document[];
  /** True when the cursor has nothing more to give; the reply then carries cursor id 0. */
  exhausted: boolean;
  /** Change streams only: the token to resume after everything in this batch. */
  postBatchResumeToken?: Document;
}

export interface NextBatchOptions {
  /** Number of documents wanted; undefined means "as many as fit" (mongod's default). */
  batchSize?: number;
  /** Tailable awaitData cursors wait up to this long for new results before answering empty. */
  maxAwaitTimeMS?: number;
  /**
   * A waiting getMore returns once any of these aborts: its connection's (closed, or the server
   * stopping) and its session's kill switch (killSessions). Several rather than one combined:
   * an AbortController per getMore would cost the server a signal and four listeners for each.
   */
  signals: readonly AbortSignal[];
}

export interface ServerCursor {
  /** Namespace "db.collection" reported in cursor replies. */
  readonly ns: string;
  nextBatch(options: NextBatchOptions): Promise<CursorBatch>;
  close(): void;
}

export type CursorId = Long;
