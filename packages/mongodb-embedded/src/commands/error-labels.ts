// The error labels mongod adds to a failed command (error_labels.cpp): TransientTransaction-
// Error inside transactions, RetryableWriteError for retryable writes and commit/abort,
// ResumableChangeStreamError / NonResumableChangeStreamError for change streams.
import type { Document } from "bson";

/** ErrorCodes' RetriableError category, plus the network errors. */
const RETRIABLE_CODES = new Set([6, 7, 89, 91, 134, 189, 262, 9001, 10107, 11600, 11602, 13435, 13436]);
/** NeedRetargettingError and the change-stream specific resumable codes. */
const RETARGETTING_CODES = new Set([63, 150, 13388]);
const RETRY_CHANGE_STREAM = 234;
const FAILED_TO_SATISFY_READ_PREFERENCE = 133;
const NON_RESUMABLE_CHANGE_STREAM_CODES = new Set([280, 286]);
/** WriteConflict, LockTimeout, PreparedTransactionInProgress and the snapshot errors. */
const ALWAYS_TRANSIENT_CODES = new Set([112, 24, 267, 239, 246]);
const NO_SUCH_TRANSACTION = 251;
const COMMIT_OR_ABORT = new Set(["commitTransaction", "abortTransaction"]);

export interface LabelContext {
  commandName: string;
  body: Document;
  /** The command is an aggregate opening a change stream or a getMore on one. */
  changeStream: boolean;
}

export function errorLabelsFor(code: number, hasWriteConcernError: boolean, context: LabelContext): string[] {
  const inSession = context.body.txnNumber !== undefined;
  const autocommitField = context.body.autocommit !== undefined;
  const commitOrAbort = COMMIT_OR_ABORT.has(context.commandName);
  if (inSession && autocommitField && isTransient(code, hasWriteConcernError, commitOrAbort)) {
    return ["TransientTransactionError"];
  }
  if (inSession && (!autocommitField || commitOrAbort) && RETRIABLE_CODES.has(code))
    return ["RetryableWriteError"];
  if (context.changeStream && !hasWriteConcernError && isResumableChangeStreamCode(code)) {
    return ["ResumableChangeStreamError"];
  }
  if (NON_RESUMABLE_CHANGE_STREAM_CODES.has(code)) return ["NonResumableChangeStreamError"];
  return [];
}

/** A write concern error's code alone can make a retryable write's reply retryable. */
export function writeConcernErrorLabels(wcCode: number, context: LabelContext): string[] {
  const inSession = context.body.txnNumber !== undefined;
  const autocommitField = context.body.autocommit !== undefined;
  const commitOrAbort = COMMIT_OR_ABORT.has(context.commandName);
  if (inSession && (!autocommitField || commitOrAbort) && RETRIABLE_CODES.has(wcCode))
    return ["RetryableWriteError"];
  return [];
}

function isTransient(code: number, hasWriteConcernError: boolean, commitOrAbort: boolean): boolean {
  if (ALWAYS_TRANSIENT_CODES.has(code) || RETARGETTING_CODES.has(code)) return true;
  if (commitOrAbort) return code === NO_SUCH_TRANSACTION && !hasWriteConcernError;
  return RETRIABLE_CODES.has(code) || code === NO_SUCH_TRANSACTION;
}

function isResumableChangeStreamCode(code: number): boolean {
  return (
    RETRIABLE_CODES.has(code) ||
    RETARGETTING_CODES.has(code) ||
    code === RETRY_CHANGE_STREAM ||
    code === FAILED_TO_SATISFY_READ_PREFERENCE
  );
}
