// Errors the embedded server answers with. Each carries MongoDB's numeric code and codeName,
// so that the official driver classifies them (retryable, resumable, transient) exactly as it
// would a real server's reply.

export interface ServerErrorOptions {
  /** Labels such as "TransientTransactionError" or "ResumableChangeStreamError". */
  errorLabels?: string[];
  /** Extra fields copied into the error reply (keyPattern/keyValue for 11000, ...). */
  extra?: Record<string, unknown>;
}

export class ServerError extends Error {
  readonly code: number;
  readonly codeName: string;
  readonly errorLabels: string[];
  readonly extra: Record<string, unknown>;

  constructor(code: number, codeName: string, message: string, options: ServerErrorOptions = {}) {
    super(message);
    this.name = "ServerError";
    this.code = code;
    this.codeName = codeName;
    this.errorLabels = options.errorLabels ?? [];
    this.extra = options.extra ?? {};
  }

  /** The body of an `{ ok: 0 }` reply, as mongod sends it. */
  toReply(): Record<string, unknown> {
    const reply: Record<string, unknown> = {
      ok: 0,
      errmsg: this.message,
      code: this.code,
      codeName: this.codeName,
      ...this.extra,
    };
    if (this.errorLabels.length > 0) reply.errorLabels = this.errorLabels;
    return reply;
  }
}

/** Codes used in more than one place; the values and names are mongod's (error_codes.yml). */
export const ErrorCode = {
  BadValue: 2,
  FailedToParse: 9,
  TypeMismatch: 14,
  InvalidLength: 16,
  IllegalOperation: 20,
  NamespaceNotFound: 26,
  ConflictingUpdateOperators: 40,
  CursorNotFound: 43,
  NamespaceExists: 48,
  MaxTimeMSExpired: 50,
  DollarPrefixedFieldName: 52,
  InvalidIdField: 53,
  NotSingleValueField: 54,
  ImmutableField: 66,
  InvalidOptions: 72,
  InvalidNamespace: 73,
  IndexOptionsConflict: 85,
  IndexKeySpecsConflict: 86,
  WriteConflict: 112,
  CommandNotFound: 59,
  CommandNotSupported: 115,
  NoSuchTransaction: 251,
  TransactionTooOld: 225,
  ChangeStreamFatalError: 280,
  ChangeStreamHistoryLost: 286,
  NoSuchKey: 4,
  PathNotViable: 28,
  Location40324: 40324,
  Location31254: 31254,
  DuplicateKey: 11000,
  BSONObjectTooLarge: 10334,
  CommandNotSupportedOnView: 166,
  NotImplemented: 238,
  OperationNotSupportedInTransaction: 263,
  Interrupted: 11601,
} as const;

/** What an operation that killSessions interrupted fails with (mongod's killOperation default). */
export function interrupted(): ServerError {
  return new ServerError(ErrorCode.Interrupted, "Interrupted", "operation was interrupted");
}
