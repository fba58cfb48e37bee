// A change-stream cursor: reads the change log from its position, shapes and filters events,
// and waits (awaitData) for new commits when there is nothing to return. A large backlog is
// read in slices with a yield to the event loop between them, so that the server's other
// connections are answered while a cursor drains it (mongod yields its locks likewise).
import type { Document, Timestamp } from "bson";
import type { CursorBatch, NextBatchOptions, ServerCursor } from "../cursor.js";
import { WorkSlice } from "../yield-period.js";
import { anyAborted, historyLost, type ChangeLog, type LoggedChange } from "./change-log.js";
import {
  addPostImage,
  buildChangeEvent,
  buildInvalidateEvent,
  needsPostImage,
  oplogView,
  type EventSources,
} from "./change-event.js";
import { compileEventPrefilter, compileOplogFilter, type EventPrefilter } from "./event-prefilter.js";
import {
  comparePositions,
  encodeResumeToken,
  highWaterMark,
  passedOver,
  timestampToBigInt,
  type StreamPosition,
} from "./resume-token.js";
import type { ChangeStreamOptions } from "./stream-options.js";
import { eventOrFragments, withoutSplitStage, type PositionedEvent } from "./split-large-event.js";
import { cursorNamespace, invalidatesScope, isVisibleInScope, type StreamScope } from "./stream-scope.js";
import { assertEventFits, compileUserPipeline } from "./user-pipeline.js";
import { batchElementBytes, MAX_BATCH_BYTES } from "../reply-limit.js";

export interface ChangeStreamCursorDeps extends EventSources {
  changeLog: ChangeLog;
  currentClusterTime(): Timestamp;
}

/** getMore's default awaitData wait when the command gives no maxTimeMS. */
const DEFAULT_AWAIT_MS = 1000;
/** Change records read between two yields to the other connections, at most. */
const RECORDS_PER_SLICE = 256;
// ...and a slice ends after YIELD_PERIOD_MS of work too: building an event and running the
// stream's pipeline on it can take milliseconds each (a diff of large documents, `$expr`
// filters), so 256 of them could hold every other connection (a lease renewal, say) for
// seconds on a busy machine.
/**
 * A batch is cut short (possibly empty, with the scanned position as its resume token) once
 * its scan has run this long and past the getMore's own wait: a client always hears back.
 */
const MIN_SCAN_MS = 1000;

interface ScanResult {
  documents: Document[];
  position: StreamPosition;
  invalidated: boolean;
  /** True when the scan reached the newest record of the log. */
  reachedEnd: boolean;
}

/** The change's own event, or (invalidates) the invalidate that follows it. */
interface Candidate {
  change: LoggedChange;
  position: StreamPosition;
  invalidates: boolean;
}

export class ChangeStreamCursor implements ServerCursor {
  readonly ns: string;
  private position: StreamPosition;
  private finished = false;
  /** Whether mongod's oplog filter drops a change, judged before its event is built. */
  private readonly oplogRejects: ((view: Document) => boolean) | null;
  private readonly prefilter: EventPrefilter;
  /** True when the pipeline ends in $changeStreamSplitLargeEvent. */
  private readonly splits: boolean;
  private readonly userPipeline: (event: Document) => Document | null;
  /** The stages after the leading $match, for the events the prefilter already accepted. */
  private readonly afterMatch: (event: Document) => Document | null;

  constructor(
    private readonly scope: StreamScope,
    private readonly options: ChangeStreamOptions,
    private readonly pipeline: Document[],
    private readonly deps: ChangeStreamCursorDeps,
    start: StreamPosition,
  ) {
    this.ns = cursorNamespace(scope);
    this.position = start;
    // Compiled once per cursor, not once per event.
    const { stages, splits } = withoutSplitStage(pipeline);
    this.splits = splits;
    this.oplogRejects = compileOplogFilter(stages);
    this.prefilter = compileEventPrefilter(stages);
    this.userPipeline = compileUserPipeline(stages);
    this.afterMatch = compileUserPipeline(this.prefilter.afterMatch);
  }

  async nextBatch(options: NextBatchOptions): Promise<CursorBatch> {
    const waitMs = options.maxAwaitTimeMS ?? DEFAULT_AWAIT_MS;
    const startedAt = Date.now();
    const deadline = startedAt + waitMs;
    const scanDeadline = startedAt + Math.max(waitMs, MIN_SCAN_MS);
    for (;;) {
      if (this.finished || this.deps.changeLog.isClosed) return this.finish();
      const scan = await this.scan(options, scanDeadline);
      this.position = scan.position;
      if (scan.invalidated) this.finished = true;
      if (scan.documents.length > 0 || scan.invalidated || !scan.reachedEnd) {
        return this.batchOf(scan.documents, scan.reachedEnd);
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0 || anyAborted(options.signals)) return this.batchOf([], true);
      await this.deps.changeLog.waitForAppend(options.signals, remaining);
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
  private assertHistoryRetained(position: StreamPosition): void {
    if (this.deps.changeLog.hasLostHistoryAfter(position)) throw historyLost();
  }

  /**
   * Events after the current position, up to batchSize and the reply's size budget, read a
   * slice at a time. The position is only committed by the caller, so an error leaves the
   * cursor where it was.
   */
  private async scan(options: NextBatchOptions, deadline: number): Promise<ScanResult> {
    const limit =
      options.batchSize !== undefined && options.batchSize > 0 ? options.batchSize : Number.POSITIVE_INFINITY;
    const result: ScanResult = {
      documents: [],
      position: this.position,
      invalidated: false,
      reachedEnd: false,
    };
    let bytes = 0;
    const slice = new WorkSlice();
    for (;;) {
      this.assertHistoryRetained(result.position);
      // The record at the position itself comes back too: its invalidate may still be due.
      const records = this.deps.changeLog.recordsFrom(result.position, RECORDS_PER_SLICE + 1);
      const sliceStart = result.position;
      let cutShort = false;
      for (const change of records) {
        const candidates = this.candidatesFor(change);
        // A record out of scope moves the scan (and the post-batch token) past it, as mongod's
        // does (mongo src/mongo/db/pipeline/plan_executor_pipeline.cpp, latest oplog timestamp).
        if (candidates.length === 0 && comparePositions(passedOver(change.position), result.position) > 0) {
          result.position = passedOver(change.position);
        }
        for (const candidate of candidates) {
          if (isPassed(candidate.position, result.position)) continue;
          for (const output of this.outputsFor(candidate, result.position)) {
            if (output.document) {
              const size = batchElementBytes(result.documents.length, assertEventFits(output.document));
              if (result.documents.length > 0 && bytes + size > MAX_BATCH_BYTES) return result;
              result.documents.push(output.document);
              bytes += size;
            }
            result.position = output.position;
            // A batch may end between two fragments: the next resumes after the last one sent.
            if (result.documents.length >= limit && !candidate.invalidates) return result;
          }
          if (candidate.invalidates) {
            result.invalidated = true;
            return result;
          }
        }
        // Only once the position moved, so that the next slice starts further on.
        if (slice.over && comparePositions(result.position, sliceStart) > 0) {
          cutShort = true;
          break;
        }
      }
      if (!cutShort && records.length <= RECORDS_PER_SLICE) {
        result.reachedEnd = true;
        return result;
      }
      if (Date.now() >= deadline || anyAborted(options.signals)) return result;
      await slice.next();
    }
  }

  /** The change's own event (if this stream sees it) and, when it ends the stream, the invalidate. */
  private candidatesFor(change: LoggedChange): Candidate[] {
    const candidates: Candidate[] = [];
    const { record } = change;
    if (!isVisibleInScope(this.scope, record, this.options.showExpandedEvents)) return candidates;
    candidates.push({ change, position: change.position, invalidates: false });
    if (invalidatesScope(this.scope, record)) {
      candidates.push({ change, position: { ...change.position, kind: "invalidate" }, invalidates: true });
    }
    return candidates;
  }

  /**
   * What the stream returns for the candidate: nothing (document null) when the user's stages
   * drop it, the event, or (split) its fragments after the one `position` names.
   */
  private outputsFor(
    candidate: Candidate,
    position: StreamPosition,
  ): (PositionedEvent | { document: null; position: StreamPosition })[] {
    const event = this.build(candidate);
    if (event === null || !this.splits) return [{ document: event, position: candidate.position }];
    const resumed = samePlace(candidate.position, position) ? position.fragment : undefined;
    return eventOrFragments(event, candidate.position, resumed);
  }

  /** The candidate's event after the user's stages, or null when they drop it. */
  private build(candidate: Candidate): Document | null {
    // As in mongod, the invalidate passes through the user's stages like any event (a $match
    // may drop it), and the stream ends after it either way.
    if (candidate.invalidates)
      return this.userPipeline(buildInvalidateEvent(candidate.change, candidate.position));
    return this.eventFor(candidate.change);
  }

  /**
   * The event after the user's stages; none built for a change the oplog filter drops (a
   * pre-image "required" but missing then fails nothing, as in mongod). An update's post-image is looked up only if the
   * prefilter cannot reject the event on its own fields, and the $match is not run again on
   * an event the prefilter found it accepts.
   */
  private eventFor(change: LoggedChange): Document | null {
    if (this.oplogRejects?.(oplogView(change.record))) return null;
    const imagesKept = this.deps.changeLog.imagesKept(change);
    const event = buildChangeEvent(change, this.options, imagesKept);
    if (event === null) return null;
    // Nothing to look up: the event is whole, and the $match judges it once.
    if (!needsPostImage(change.record, this.options)) return this.userPipeline(event);
    const verdict = this.prefilter.judge(event);
    if (verdict === "rejects") return null;
    addPostImage(event, change.record, this.options, this.deps, imagesKept);
    return verdict === "matches" ? this.afterMatch(event) : this.userPipeline(event);
  }

  /** A batch cut short before the end resumes from what was scanned, not from "now". */
  private batchOf(documents: Document[], reachedEnd: boolean): CursorBatch {
    const last = documents[documents.length - 1];
    const postBatchResumeToken = last
      ? (last._id as Document)
      : reachedEnd
        ? this.highWaterMarkToken()
        : encodeResumeToken(this.position);
    return { documents, exhausted: this.finished, postBatchResumeToken };
  }

  /** Idle: everything committed up to now has been seen, so resuming here misses nothing. */
  private highWaterMarkToken(): Document {
    const now = highWaterMark(timestampToBigInt(this.deps.currentClusterTime()));
    return encodeResumeToken(comparePositions(now, this.position) > 0 ? now : this.position);
  }
}

/** The candidate was returned already: it is at or before `position`, and not partly returned. */
function isPassed(candidate: StreamPosition, position: StreamPosition): boolean {
  const order = comparePositions(candidate, { ...position, fragment: undefined });
  return order < 0 || (order === 0 && position.fragment === undefined);
}

function samePlace(a: StreamPosition, b: StreamPosition): boolean {
  return a.clusterTime === b.clusterTime && a.txnOpIndex === b.txnOpIndex && a.kind === b.kind;
}
