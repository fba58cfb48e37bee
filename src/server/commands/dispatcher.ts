// Runs one command: finds its handler, turns thrown errors into mongod's { ok: 0 } replies,
// and stamps every reply with $clusterTime and operationTime as a replica-set member does.
import { Binary, Long, type Document } from "bson";
import { ServerError, ErrorCode } from "../errors.js";
import type { ServerState } from "../server-state.js";
import type { CommandRequest, ConnectionInfo } from "./command-context.js";
import { COMMANDS } from "./command-table.js";

const ZERO_SIGNATURE = { hash: new Binary(Buffer.alloc(20)), keyId: Long.fromNumber(0) };

export async function dispatchCommand(
  body: Document,
  db: string,
  connection: ConnectionInfo,
  server: ServerState,
): Promise<Document> {
  let reply: Document;
  try {
    const name = Object.keys(body)[0];
    if (name === undefined) throw new ServerError(ErrorCode.BadValue, "BadValue", "empty command document");
    const handler = COMMANDS.get(name);
    if (!handler) {
      throw new ServerError(ErrorCode.CommandNotFound, "CommandNotFound", `no such command: '${name}'`);
    }
    const request: CommandRequest = { name, db, body, connection };
    reply = await handler(request, server);
  } catch (error) {
    reply = errorReply(error);
  }
  return stampClusterTime(reply, server);
}

export function errorReply(error: unknown): Document {
  if (error instanceof ServerError) return error.toReply();
  const message = error instanceof Error ? error.message : String(error);
  return { ok: 0, errmsg: `internal error: ${message}`, code: 1, codeName: "InternalError" };
}

function stampClusterTime(reply: Document, server: ServerState): Document {
  const clusterTime = server.clock.current();
  return { ...reply, $clusterTime: { clusterTime, signature: ZERO_SIGNATURE }, operationTime: clusterTime };
}
