// The errors mongod answers for transaction state problems, with the labels the driver's
// withTransaction and retry logic key on.
import { ServerError, ErrorCode } from "../errors.js";

const TRANSIENT = { errorLabels: ["TransientTransactionError"] };

export function noSuchTransaction(txnNumber: bigint, detail: string): ServerError {
  return new ServerError(
    ErrorCode.NoSuchTransaction,
    "NoSuchTransaction",
    `Transaction with { txnNumber: ${txnNumber} } has been aborted or does not exist: ${detail}`,
    TRANSIENT,
  );
}

export function transactionTooOld(txnNumber: bigint, active: bigint): ServerError {
  return new ServerError(
    ErrorCode.TransactionTooOld,
    "TransactionTooOld",
    `Cannot start transaction ${txnNumber} on session because a newer transaction ${active} has already started`,
  );
}

export function writeConflict(): ServerError {
  return new ServerError(
    ErrorCode.WriteConflict,
    "WriteConflict",
    "Write conflict during plan execution and yielding is disabled. :: Please retry your operation or multi-document transaction.",
    TRANSIENT,
  );
}

export function transactionCommitted(txnNumber: bigint): ServerError {
  return new ServerError(256, "TransactionCommitted", `Transaction ${txnNumber} has been committed.`);
}
