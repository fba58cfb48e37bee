// Change streams of the embedded server: the change log the storage layer appends to, and the
// cursors the aggregate command opens on it with a leading $changeStream stage.
import type { Document, Timestamp } from "bson";
import type { ServerCursor } from "../cursor.js";
import type { ChangeLog } from "./change-log.js";
import { ChangeStreamCursor } from "./change-stream-cursor.js";
import { verifyResumePoint } from "./resume-point.js";
import { highWaterMark, timestampToBigInt } from "./resume-token.js";
import { parseChangeStreamOptions } from "./stream-options.js";
import { assertCanResumeFromFragment, withoutSplitStage } from "./split-large-event.js";
import { resolveScope } from "./stream-scope.js";
import { validateUserPipeline } from "./user-pipeline.js";

export { ChangeLog, type ChangeLogOptions, type LoggedChange } from "./change-log.js";
export type { ChangeOperation, ChangeRecord } from "./change-record.js";

export interface ChangeStreamRequest {
  db: string;
  /** Undefined for a database stream (db.watch()) or a cluster stream. */
  coll?: string;
  /** True for client.watch(): an aggregate on admin with allChangesForCluster. */
  allChangesForCluster: boolean;
  /** The $changeStream stage's options. */
  spec: Document;
  /** The stages after $changeStream. */
  pipeline: Document[];
}

export interface ChangeStreamDeps {
  changeLog: ChangeLog;
  lookupDocument(db: string, coll: string, documentKey: Document): Document | null;
  currentClusterTime(): Timestamp;
  collectionExists(db: string, coll: string): boolean;
}

/** Opens a change-stream cursor; throws ServerError with mongod's codes for bad options. */
export function openChangeStream(request: ChangeStreamRequest, deps: ChangeStreamDeps): ServerCursor {
  const options = parseChangeStreamOptions(request.spec);
  const scope = resolveScope(request);
  validateUserPipeline(request.pipeline);
  const { splits } = withoutSplitStage(request.pipeline);
  let start;
  if (options.start.kind === "now") {
    // mongod starts just after the latest committed operation, so it is not returned.
    start = highWaterMark(timestampToBigInt(deps.currentClusterTime()));
  } else {
    assertCanResumeFromFragment(options.start.position, splits);
    verifyResumePoint(deps.changeLog, scope, options.start, options.showExpandedEvents);
    start = options.start.position;
  }
  return new ChangeStreamCursor(scope, options, request.pipeline, deps, start);
}
