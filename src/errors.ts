// The sidecar's error classes and the one place that decides what an error means for the
// runner: retry the transaction, let the stream resume, sweep, skip the document, or stop.
import {
  MongoError,
  MongoErrorLabel,
  MongoNetworkError,
  MongoServerError,
  MongoServerSelectionError,
  MongoWriteConcernError,
} from "mongodb";
import { redactUriPasswords } from "./config/mongodb-uri.js";
import {
  hasCode,
  HISTORY_LOST_CODES,
  REFUSED_DOCUMENT_CODES,
  RESUMABLE_CODES,
  TRANSIENT_CODES,
} from "./mongodb-codes.js";

/**
 * Error classes counted in `errors_total`; classify() below decides which an error is. Each
 * deserves its own alert (docs/alerting.md): lease_lost and invalidate are routine, parked
 * means a document waits for an operator's look, poison_event a stream that failed twice where
 * it starts (poison-events.ts), fatal is what nothing gets past by itself.
 */
export const ERROR_KINDS = [
  "transient",
  "resumable",
  "history_lost",
  "bad_document",
  "lease_lost",
  "invalidate",
  "parked",
  "poison_event",
  "fatal",
] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

/** Base of every error the sidecar raises itself; `context` says which rule and document. */
export class SidecarError extends Error {
  constructor(
    message: string,
    readonly context: Record<string, unknown> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A document the rule cannot plan for; logged with its key and counted, never rewritten. */
export class BadDocumentError extends SidecarError {}

/** Another replica holds the writer lease: the fencing write inside a transaction matched nothing. */
export class LeaseLostError extends SidecarError {}

/**
 * A takeover conflicts with a transaction the previous leader left open, and the server
 * refused to kill its session: the takeover is tried again until the transaction ends.
 */
export class TakeoverBlockedError extends SidecarError {}

/** The change stream was invalidated (its collection or database dropped or renamed); it restarts after it. */
export class StreamInvalidatedError extends SidecarError {}

/** A correction that kept failing after `maxTransactionAttempts`; it is retried later. */
export class CorrectionFailedError extends SidecarError {}

/**
 * A correction that commits neither whole nor in parts (correction-parts.ts): its pattern
 * cannot split it, or even its smallest part does not commit. Parked at once, reason "too_large".
 */
export class TransactionTooLargeError extends CorrectionFailedError {}

/**
 * The plans of a shared transaction would write more than one transaction should carry: it is
 * undone before writing, and its targets are corrected one by one.
 */
export class BatchTooLargeError extends SidecarError {}

/**
 * The read of a shared transaction's documents, before reading anything, found them more
 * than the whole memory budget holds: it is undone, and each correction made alone.
 */
export class BatchOverBudgetError extends SidecarError {}

/** A planned write matched nothing: the state moved under the plan; the transaction is redone. */
export class StalePlanError extends SidecarError {}

/**
 * The server refused the bulkWrite command (an 8.0 server at featureCompatibilityVersion 7.0,
 * as during an upgrade): the transaction is redone with one write command per collection.
 */
export class WritePathChangedError extends SidecarError {}

/** Command-line usage the CLI cannot run; exit code 2. */
export class UsageError extends SidecarError {}

/** A rule names a pattern no driver is registered for (src/patterns/registry.ts). */
export class UnknownPatternError extends SidecarError {}

/** The configuration cannot be used; the CLI prints the message and exits 2. Passwords are masked. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(redactUriPasswords(message));
    this.name = "ConfigError";
  }
}

function hasLabel(error: unknown, label: string): boolean {
  return error instanceof MongoError && error.hasErrorLabel(label);
}

/** What an error means for the runner; also the `kind` label of `errors_total`. */
export function classify(error: unknown): ErrorKind {
  if (error instanceof BadDocumentError) return "bad_document";
  if (error instanceof LeaseLostError) return "lease_lost";
  if (error instanceof StreamInvalidatedError) return "invalidate";
  if (error instanceof TakeoverBlockedError) return "transient";
  if (hasCode(error, HISTORY_LOST_CODES)) return "history_lost";
  if (error instanceof CorrectionFailedError || isRedone(error)) return "transient";
  if (hasLabel(error, MongoErrorLabel.TransientTransactionError)) return "transient";
  if (hasLabel(error, MongoErrorLabel.UnknownTransactionCommitResult)) return "transient";
  if (hasLabel(error, MongoErrorLabel.RetryableWriteError)) return "transient";
  if (hasCode(error, TRANSIENT_CODES)) return "transient";
  if (isResumable(error)) return "resumable";
  if (isRefusedDocument(error)) return "bad_document";
  return "fatal";
}

// Only a server's answer to a write says anything about the document; a write concern
// error says the write was not replicated in time, whatever its code.
function isRefusedDocument(error: unknown): boolean {
  if (!(error instanceof MongoServerError) || error instanceof MongoWriteConcernError) return false;
  return hasCode(error, REFUSED_DOCUMENT_CODES);
}

/** Errors a change stream (or a reconnecting client) gets past by itself. */
function isResumable(error: unknown): boolean {
  if (error instanceof MongoNetworkError || error instanceof MongoServerSelectionError) return true;
  if (hasLabel(error, MongoErrorLabel.ResumableChangeStreamError)) return true;
  return hasCode(error, RESUMABLE_CODES);
}

/** A transaction attempt worth repeating from the start (write conflict, transient abort). */
export function isRetryableTransactionError(error: unknown): boolean {
  if (isRedone(error)) return true;
  if (hasLabel(error, MongoErrorLabel.TransientTransactionError)) return true;
  return hasCode(error, TRANSIENT_CODES);
}

/**
 * Errors of our own that redo a correction's transaction from its reads: a plan that no
 * longer held, a write path that changed. Unlike a conflict, they have nothing to wait out.
 */
export function isRedone(error: unknown): boolean {
  return error instanceof StalePlanError || error instanceof WritePathChangedError;
}

/** A commit whose outcome is unknown; committing again is safe (commitTransaction is idempotent). */
export function isUnknownCommitResult(error: unknown): boolean {
  return hasLabel(error, MongoErrorLabel.UnknownTransactionCommitResult);
}

/** Turns anything thrown into an Error, so that logs always have a message and a stack. */
export function toError(thrown: unknown): Error {
  if (thrown instanceof Error) return thrown;
  return new Error(`non-error thrown: ${String(thrown)}`);
}
