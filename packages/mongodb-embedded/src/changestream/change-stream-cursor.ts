// A change-stream cursor: reads the change log from its position, shapes and filters events,
// and waits (awaitData) for new commits when there is nothing to return.
import type { Document, Timestamp } from "bson";
import type { CursorBatch, NextBatchOptions, ServerCursor } from "../cursor.js";
import { historyLost, type ChangeLog, type LoggedChange } from "./change-log.js";
import { buildChangeEvent, buildInvalidateEvent, type EventSources } from "./change-event.js";
import {
  comparePositions,
  encodeResumeToken,
  highWaterMark,
  timestampToBigInt,
  type StreamPosition,
} from "./resume-token.js";
import type { ChangeStreamOptions } from "./stream-options.js";
import { cursorNamespace, invalidatesScope, isVisibleInScope, type StreamScope } from "./stream-scope.js";
import { applyUserPipeline, assertEventFits, MAX_EVENT_BYTES } from "./user-pipeline.js";

export interface ChangeStreamCursorDeps extends EventSources {
  changeLog: ChangeLog;
  currentClusterTime(): Timestamp;
}

/** getMore's default awaitData wait when the command gives no maxTimeMS. */
const DEFAULT_AWAIT_MS = 1000;

interface ScanResult {
  documents: Document[];
  position: StreamPosition;
  invalidated: boolean;
}

export class ChangeStreamCursor implements ServerCursor {
  readonly ns: string;
  private position: StreamPosition;
  private finished = false;

  constructor(
    private readonly scope: StreamScope,
    private readonly options: ChangeStreamOptions,
    private readonly pipeline: Document[],
    private readonly deps: ChangeStreamCursorDeps,
    start: StreamPosition,
  ) {
    this.ns = cursorNamespace(scope);
    this.position = start;
  }

  async nextBatch(options: NextBatchOptions): Promise<CursorBatch> {
    const waitMs = options.maxAwaitTimeMS ?? DEFAULT_AWAIT_MS;
    const deadline = Date.now() + waitMs;
    for (;;) {
      if (this.finished || this.deps.changeLog.isClosed) return this.finish();
      this.assertHistoryRetained();
      const scan = this.scan(options.batchSize);
      this.position = scan.position;
      if (scan.invalidated) this.finished = true;
      if (scan.documents.length > 0 || scan.invalidated) return this.batchOf(scan.documents);
      const remaining = deadline - Date.now();
      if (remaining <= 0 || options.signal.aborted) return this.batchOf([]);
      await this.deps.changeLog.waitForAppend(options.signal, remaining);
    }
  }

  close(): void {
    this.finished = true;
  }

  private finish(): CursorBatch {
    this.finished = true;
    return { documents: [], exhausted: true, postBatchResumeToken: encodeResumeToken(this.position) };
  }

  /** A live cursor that fell behind the bounded history fails like a resume would (286). */
  private assertHistoryRetained(): void {
    if (this.deps.changeLog.hasLostHistoryAfter(this.position)) throw historyLost();
  }

  /**
   * Events after the current position, up to batchSize and the reply's size budget. The
   * position is only committed by the caller, so an error leaves the cursor where it was.
   */
  private scan(batchSize: number | undefined): ScanResult {
    const limit = batchSize !== undefined && batchSize > 0 ? batchSize : Number.POSITIVE_INFINITY;
    const documents: Document[] = [];
    let position = this.position;
    let bytes = 0;
    for (const change of this.deps.changeLog.recordsFrom(position)) {
      for (const candidate of this.candidatesFor(change)) {
        if (comparePositions(candidate.position, position) <= 0) continue;
        const event = candidate.build();
        if (event) {
          const size = assertEventFits(event);
          if (documents.length > 0 && bytes + size > MAX_EVENT_BYTES)
            return { documents, position, invalidated: false };
          documents.push(event);
          bytes += size;
        }
        position = candidate.position;
        if (candidate.invalidates) return { documents, position, invalidated: true };
        if (documents.length >= limit) return { documents, position, invalidated: false };
      }
    }
    return { documents, position, invalidated: false };
  }

  /** The change's own event (if this stream sees it) and, when it ends the stream, the invalidate. */
  private candidatesFor(change: LoggedChange) {
    const candidates: { position: StreamPosition; invalidates: boolean; build: () => Document | null }[] = [];
    const { record } = change;
    if (!isVisibleInScope(this.scope, record, this.options.showExpandedEvents)) return candidates;
    candidates.push({
      position: change.position,
      invalidates: false,
      build: () => this.applyPipeline(buildChangeEvent(change, this.options, this.deps)),
    });
    if (invalidatesScope(this.scope, record)) {
      const position: StreamPosition = { ...change.position, kind: "invalidate" };
      // As in mongod, the invalidate passes through the user's stages like any event (a $match
      // may drop it), and the stream ends after it either way.
      candidates.push({
        position,
        invalidates: true,
        build: () => this.applyPipeline(buildInvalidateEvent(change, position)),
      });
    }
    return candidates;
  }

  private applyPipeline(event: Document | null): Document | null {
    return event === null ? null : applyUserPipeline(event, this.pipeline);
  }

  private batchOf(documents: Document[]): CursorBatch {
    const last = documents[documents.length - 1];
    const postBatchResumeToken = last ? (last._id as Document) : this.highWaterMarkToken();
    return { documents, exhausted: this.finished, postBatchResumeToken };
  }

  /** Idle: everything committed up to now has been seen, so resuming here misses nothing. */
  private highWaterMarkToken(): Document {
    const now = highWaterMark(timestampToBigInt(this.deps.currentClusterTime()));
    return encodeResumeToken(comparePositions(now, this.position) > 0 ? now : this.position);
  }
}
