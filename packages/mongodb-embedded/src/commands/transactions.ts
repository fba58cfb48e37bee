// commitTransaction, abortTransaction, endSessions, killSessions and killAllSessions.
import type { Binary, Document } from "bson";
import { ServerError, ErrorCode } from "../errors.js";
import type { ServerState } from "../server-state.js";
import type { CommandHandler, CommandRequest } from "./command-context.js";
import { bigintValue } from "./command-args.js";
import { ownedSessionId } from "./authentication.js";
import { userDigest } from "../auth/users.js";

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

/**
 * killSessions: aborts the named sessions' transactions at once and closes their cursors; an
 * empty list kills every session. The sessions themselves stay usable, as on mongod.
 */
export const killSessions: CommandHandler = (request, server) => {
  const specs = Array.isArray(request.body.killSessions) ? (request.body.killSessions as Document[]) : [];
  // Each id names the caller's own session only, as mongod completes it with the caller's uid;
  // with authentication an empty list means all of the caller's sessions.
  const user = request.connection.user;
  const lsids =
    specs.length > 0
      ? specs.map((spec) => ownedSessionId({ id: spec.id as unknown }, user))
      : user
        ? sessionsOf(server, userDigest(user))
        : undefined;
  killAndClose(request, server, lsids);
  return { ok: 1 };
};

/**
 * killAllSessions: an empty list kills every session. Without authentication no session
 * belongs to a named user, so a list of users kills none.
 */
export const killAllSessions: CommandHandler = (request, server) => {
  const users = Array.isArray(request.body.killAllSessions) ? request.body.killAllSessions : [];
  if (users.length === 0) killAndClose(request, server, undefined);
  return { ok: 1 };
};

/** The sessions of the user whose digest is `uid`. */
function sessionsOf(server: ServerState, uid: Binary): Document[] {
  const digest = Buffer.from(uid.buffer);
  return server.sessions.list().flatMap(({ lsid }) => {
    const owner = lsid.uid as Binary | undefined;
    return owner && digest.equals(Buffer.from(owner.buffer)) ? [lsid] : [];
  });
}

function killAndClose(request: CommandRequest, server: ServerState, lsids: Document[] | undefined): void {
  const cursors = server.sessions.kill(lsids, `session killed by ${request.name}`);
  for (const id of cursors) server.cursors.kill(id);
}
