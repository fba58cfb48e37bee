// Checks made when a stream opens at a resume point, as mongod's DSCSCheckResumability and
// DSCSEnsureResumeTokenPresent stages do: the history must still reach the point (else 286),
// and a token naming an event must name one this stream could have returned (else 280).
import { ErrorCode, ServerError } from "../errors.js";
import { historyLost, type ChangeLog } from "./change-log.js";
import { encodeResumeToken, type StreamPosition } from "./resume-token.js";
import type { StreamStart } from "./stream-options.js";
import { isVisibleInScope, type StreamScope } from "./stream-scope.js";

export function verifyResumePoint(
  changeLog: ChangeLog,
  scope: StreamScope,
  start: StreamStart & { position: StreamPosition },
  showExpandedEvents: boolean,
): void {
  const { position } = start;
  if (position.kind === "highWaterMark") {
    if (changeLog.hasLostHistoryAfter(position)) throw historyLost();
    return;
  }
  const record = changeLog.recordAt(position);
  if (record === undefined) {
    if (changeLog.hasLostHistoryAtOrAfter(position)) throw historyLost();
    throw tokenNotFound(position);
  }
  if (changeLog.hasLostHistoryAfter(position)) throw historyLost();
  if (!isVisibleInScope(scope, record.record, showExpandedEvents)) throw tokenNotFound(position);
}

function tokenNotFound(position: StreamPosition): ServerError {
  return new ServerError(
    ErrorCode.ChangeStreamFatalError,
    "ChangeStreamFatalError",
    `cannot resume stream; the resume token was not found. ${JSON.stringify(encodeResumeToken(position))}`,
  );
}
