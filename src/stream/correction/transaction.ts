// One correction = one multi-document transaction, retried from the start on write
// conflicts and other TransientTransactionErrors, up to a bounded number of attempts. Our
// own loop rather than session.withTransaction: that one retries for up to 120 s with no
// attempt limit, and we count every retry in a metric.
import type { ClientSession, MongoClient } from "mongodb";
import {
  CorrectionFailedError,
  isRedone,
  isRetryableTransactionError,
  isUnknownCommitResult,
} from "../../errors.js";
import { retryWithBackoff } from "../retry.js";

export interface TransactionOptions {
  maxAttempts: number;
  /** Called before each attempt after the first, with the error that ended the previous one. */
  onRetry?: (attempt: number, error: unknown) => void;
  /** Describes the correction in the error raised when attempts run out. */
  context?: Record<string, unknown>;
  /** Told when aborting a failed attempt itself failed; the attempt's own error is still thrown. */
  onAbortFailed?: (error: unknown) => void;
}

/** Where a transaction gets its session: a pool the caller owns, or a session of its own. */
export type SessionSource = <T>(work: (session: ClientSession) => Promise<T>) => Promise<T>;

export async function ownSession<T>(
  client: MongoClient,
  work: (session: ClientSession) => Promise<T>,
): Promise<T> {
  const session = client.startSession();
  try {
    return await work(session);
  } finally {
    await session.endSession();
  }
}

const COMMIT_ATTEMPTS = 3;
/**
 * How long one commit may wait for a majority: unbounded, a primary that cannot reach one
 * held the correction, and the stop behind it, for ever. A commit that runs out is repeated
 * (its outcome is unknown) and the correction retried, never taken as done.
 */
export const MAX_COMMIT_TIME_MS = 10_000;
// Short: a write conflict clears as soon as the other transaction commits or aborts.
const TRANSACTION_BACKOFF = { baseMs: 20, maxMs: 1000 };

export async function runTransaction<T>(
  withSession: SessionSource,
  options: TransactionOptions,
  body: (session: ClientSession) => Promise<T>,
): Promise<T> {
  return withSession((session) =>
    retryWithBackoff(
      async (attempt) => {
        try {
          return await runAttempt(session, body, options.onAbortFailed);
        } catch (error) {
          if (!isRetryableTransactionError(error) || attempt < options.maxAttempts) throw error;
          throw new CorrectionFailedError(
            `transaction failed ${attempt} times`,
            { ...options.context, attempts: attempt },
            { cause: error },
          );
        }
      },
      {
        backoff: TRANSACTION_BACKOFF,
        shouldRetry: isRetryableTransactionError,
        // A plan from a change event that no longer held is redone from a read at once.
        waitsBefore: (error) => !isRedone(error),
        onRetry: (error, attempt) => options.onRetry?.(attempt + 1, error),
      },
    ),
  );
}

/** One attempt: the transaction committed, or aborted and its error thrown. */
export async function runAttempt<T>(
  session: ClientSession,
  body: (session: ClientSession) => Promise<T>,
  onAbortFailed?: (error: unknown) => void,
): Promise<T> {
  session.startTransaction({
    readConcern: { level: "snapshot" },
    writeConcern: { w: "majority" },
    readPreference: "primary",
    maxCommitTimeMS: MAX_COMMIT_TIME_MS,
  });
  let result: T;
  try {
    result = await body(session);
  } catch (error) {
    await abortTransaction(session, onAbortFailed);
    throw error;
  }
  await commit(session);
  return result;
}

// commitTransaction may be repeated when its outcome is unknown (network error, write
// concern timeout): the server answers for the same transaction number. At once: the driver
// has already selected a server again, and the correction's own retries wait.
function commit(session: ClientSession): Promise<void> {
  return retryWithBackoff(() => session.commitTransaction(), {
    backoff: TRANSACTION_BACKOFF,
    shouldRetry: (error, attempt) => isUnknownCommitResult(error) && attempt < COMMIT_ATTEMPTS,
    waitsBefore: () => false,
  });
}

// The driver already ignores the server's errors on abortTransaction (transactions spec),
// and the server aborts an abandoned transaction itself (transactionLifetimeLimitSeconds);
// what still gets here is the driver's own failure (a closed client, say), worth reporting,
// but the error that made us abort is the one to throw.
async function abortTransaction(
  session: ClientSession,
  onAbortFailed: ((error: unknown) => void) | undefined,
): Promise<void> {
  if (!session.inTransaction()) return;
  try {
    await session.abortTransaction();
  } catch (error) {
    onAbortFailed?.(error);
  }
}
