// The MongoDB server error codes the sidecar acts on, named as in the server's
// error_codes.yml, and the one way to read an error's code; errors.ts classifies by them.

export const CODE = {
  BadValue: 2,
  Unauthorized: 13,
  TypeMismatch: 14,
  AuthenticationFailed: 18,
  LockTimeout: 24,
  NamespaceNotFound: 26,
  PathNotViable: 28,
  NamespaceExists: 48,
  DollarPrefixedFieldName: 52,
  InvalidDBRef: 55,
  EmptyFieldName: 56,
  DottedFieldName: 57,
  CommandNotFound: 59,
  ImmutableField: 66,
  WriteConflict: 112,
  CommandNotSupported: 115,
  DocumentValidationFailure: 121,
  NoSuchTransaction: 251,
  InvalidResumeToken: 260,
  TransactionTooLargeForCache: 429,
  ChangeStreamFatalError: 280,
  ChangeStreamHistoryLost: 286,
  BSONObjectTooLarge: 10334,
  DuplicateKey: 11000,
} as const;

/** The numeric code of a server error (or of anything carrying one), else undefined. */
export function codeOf(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "number" ? code : undefined;
}

/** The first code along an error's causes: the driver wraps a handshake's refusal in a selection timeout. */
export function codeInCauses(error: unknown): number | undefined {
  for (
    let cause = error;
    cause !== undefined && cause !== null;
    cause = (cause as { cause?: unknown }).cause
  ) {
    const code = codeOf(cause);
    if (code !== undefined) return code;
  }
  return undefined;
}

/** Whether `error` carries one of `codes`. */
export function hasCode(error: unknown, codes: ReadonlySet<number>): boolean {
  const code = codeOf(error);
  return code !== undefined && codes.has(code);
}

/**
 * The stream cannot continue from its position: the only way on is a sweep from a fresh
 * cluster time.
 */
export const HISTORY_LOST_CODES: ReadonlySet<number> = new Set([
  CODE.ChangeStreamHistoryLost, // the resume point fell off the oplog
  CODE.ChangeStreamFatalError, // the stream cannot resume from this token
  CODE.InvalidResumeToken,
]);

// Usually also labelled TransientTransactionError; the codes cover servers that omit the label.
export const TRANSIENT_CODES: ReadonlySet<number> = new Set([
  CODE.WriteConflict,
  CODE.LockTimeout,
  CODE.NoSuchTransaction, // the transaction was aborted under us
]);

/**
 * The server refuses a write because of what the document holds or would hold: the same
 * write fails the same way however often it is retried.
 */
export const REFUSED_DOCUMENT_CODES: ReadonlySet<number> = new Set([
  CODE.BadValue,
  CODE.TypeMismatch, // e.g. $push to a field that is not an array
  CODE.PathNotViable,
  CODE.DollarPrefixedFieldName,
  CODE.InvalidDBRef,
  CODE.EmptyFieldName,
  CODE.DottedFieldName,
  CODE.ImmutableField,
  CODE.DocumentValidationFailure,
  CODE.BSONObjectTooLarge,
  CODE.DuplicateKey,
  11001, // DuplicateKey, as older servers report it
  12582, // DuplicateKey on update, older servers
  17280, // KeyTooLong, servers before 4.2
  17419, // document after update larger than 16 MiB
  17420, // document after update larger than 16 MiB (update with upsert)
]);

/** Codes the driver treats as resumable for change-stream getMores (change-streams spec). */
export const RESUMABLE_CODES: ReadonlySet<number> = new Set([
  6, 7, 89, 91, 189, 262, 9001, 10107, 11600, 11602, 13435, 13436, 63, 150, 13388, 234, 133, 43,
]);

/**
 * Refused credentials or privileges: every read fails the same way, at any position, so a
 * narrower stream or a sweep cannot get past them.
 */
export const ACCESS_REFUSED_CODES: ReadonlySet<number> = new Set([
  CODE.Unauthorized,
  CODE.AuthenticationFailed,
]);

/**
 * How a server with wire version 25 may still refuse bulkWrite: from 8.0 at
 * featureCompatibilityVersion 7.0 (its feature flag), or from a build without it.
 */
export const BULK_WRITE_REFUSED_CODES: ReadonlySet<number> = new Set([
  CODE.CommandNotSupported,
  CODE.CommandNotFound,
]);
