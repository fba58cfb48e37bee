// commitTransaction, abortTransaction and endSessions.
import type { Document } from "bson";
import { ServerError, ErrorCode } from "../errors.js";
import type { CommandHandler, CommandRequest } from "./command-context.js";
import { bigintValue } from "./command-args.js";

function sessionOf(request: CommandRequest): { lsid: Document; txnNumber: bigint } {
  const lsid = request.body.lsid as Document | undefined;
  const txnNumber = bigintValue(request.body.txnNumber);
  if (!lsid || txnNumber === undefined) {
    throw new ServerError(
      ErrorCode.InvalidOptions,
      "InvalidOptions",
      `${request.name} must be run within a transaction`,
    );
  }
  return { lsid, txnNumber };
}

export const commitTransaction: CommandHandler = (request, server) => {
  const { lsid, txnNumber } = sessionOf(request);
  server.sessions.commit(lsid, txnNumber);
  return { ok: 1 };
};

export const abortTransaction: CommandHandler = (request, server) => {
  const { lsid, txnNumber } = sessionOf(request);
  server.sessions.abortByCommand(lsid, txnNumber);
  return { ok: 1 };
};

export const endSessions: CommandHandler = (request, server) => {
  const lsids = Array.isArray(request.body.endSessions) ? (request.body.endSessions as Document[]) : [];
  server.sessions.endSessions(lsids);
  return { ok: 1 };
};
