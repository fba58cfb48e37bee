// The pieces of a write command's reply as mongod builds them: per-statement writeErrors
// (ordered writes stop at the first, unordered ones go on) and the _id placement rules.
import { ObjectId, type Document } from "bson";
import { ServerError, ErrorCode } from "../errors.js";
import { fieldNames } from "@pattern-sidecar/bson-field-order";
import { withIdAhead } from "../query/index.js";

export interface WriteErrorEntry {
  index: number;
  code: number;
  codeName: string;
  errmsg: string;
  [extra: string]: unknown;
}

/** A statement's failure as a writeErrors entry; errors that must fail the whole command rethrow. */
export function toWriteError(index: number, error: unknown, inTransaction: boolean): WriteErrorEntry {
  if (!(error instanceof ServerError)) throw error;
  // In a transaction mongod answers a write conflict as a command error carrying
  // TransientTransactionError, so that the driver retries the whole transaction.
  if (inTransaction && error.code === ErrorCode.WriteConflict) throw error;
  if (error.code === ErrorCode.MaxTimeMSExpired) throw error;
  return { index, code: error.code, codeName: error.codeName, errmsg: error.message, ...error.extra };
}

/** `{ n, ...extra, writeErrors? , ok: 1 }` */
export function writeReply(n: number, writeErrors: WriteErrorEntry[], extra: Document = {}): Document {
  const reply: Document = { n, ...extra };
  if (writeErrors.length > 0) reply.writeErrors = writeErrors;
  reply.ok = 1;
  return reply;
}

/** mongod stores _id first, generating an ObjectId when the document has none. */
export function withIdFirst(doc: Document): Document {
  if (doc._id !== undefined && fieldNames(doc)[0] === "_id") return doc;
  return withIdAhead(doc._id === undefined ? new ObjectId() : doc._id, doc);
}
