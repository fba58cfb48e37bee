// Runs one command: finds its handler, applies an armed failCommand fail point, runs it in its
// session context, turns thrown errors into mongod's { ok: 0 } replies with the error labels
// mongod adds, and stamps every reply with $clusterTime and operationTime.
import { setTimeout as sleep } from "node:timers/promises";
import { Binary, Long, type Document } from "bson";
import { ServerError, ErrorCode, interrupted } from "../errors.js";
import type { ServerState } from "../server-state.js";
import { knowsCommand } from "../server-version.js";
import { ArrayCursor } from "./array-cursor.js";
import { assertAuthenticated, ownedSessionId } from "./authentication.js";
import type { CommandHandler, CommandRequest, ConnectionInfo } from "./command-context.js";
import { assertSimpleCollation, bigintValue } from "./command-args.js";
import { codeNameOf } from "./code-names.js";
import { COMMANDS } from "./command-table.js";
import { errorLabelsFor, writeConcernErrorLabels, type LabelContext } from "./error-labels.js";
import type { FailCommandData } from "./fail-points.js";
import { runInSession } from "./session-handling.js";
import { unsatisfiableWriteConcern } from "./write-concern.js";

const ZERO_SIGNATURE = { hash: new Binary(Buffer.alloc(20)), keyId: Long.fromNumber(0) };

/** Commands that compare strings under their `collation`; others accept only "simple". */
const COLLATING_COMMANDS = new Set(["find", "count", "distinct", "aggregate", "findAndModify"]);

export async function dispatchCommand(
  body: Document,
  db: string,
  connection: ConnectionInfo,
  server: ServerState,
): Promise<Document> {
  const name = Object.keys(body)[0] ?? "";
  const request: CommandRequest = { name, db, body, connection };
  const labels: LabelContext = {
    commandName: name,
    body,
    changeStream: isChangeStreamCommand(request, server),
  };
  const handler = knowsCommand(server.version, name) ? COMMANDS.get(name) : undefined;
  let reply: Document;
  try {
    reply = await runCommand(request, handler, server, labels);
  } catch (error) {
    reply = errorReply(error, labels);
  }
  server.commandCounts.record(name, handler !== undefined, reply.ok !== 1);
  return stampClusterTime(reply, server);
}

/** Runs `handler`, the command's own (none for a command this server's version lacks). */
async function runCommand(
  request: CommandRequest,
  handler: CommandHandler | undefined,
  server: ServerState,
  labels: LabelContext,
): Promise<Document> {
  if (!handler) {
    if (request.name === "") throw new ServerError(ErrorCode.BadValue, "BadValue", "empty command document");
    throw new ServerError(ErrorCode.CommandNotFound, "CommandNotFound", `no such command: '${request.name}'`);
  }
  assertAuthenticated(request, server);
  if (!COLLATING_COMMANDS.has(request.name)) {
    assertSimpleCollation(request.body.collation, `${request.name}.collation`);
  }
  if (request.connection.user && request.body.lsid) {
    request.body.lsid = ownedSessionId(request.body.lsid as Document, request.connection.user);
  }
  request.killed = killSignal(request, server);
  const failure =
    request.name === "configureFailPoint"
      ? undefined
      : server.failPoints.trigger(request.name, request.connection.appName);
  if (failure) {
    const early = await applyFailure(failure, request, labels);
    if (early) return early;
  }
  const reply = await runInSession(request, server, async () => handler(request, server));
  if (failure?.writeConcernError) return withWriteConcernError(reply, failure, labels);
  const writeConcernError = reply.ok === 1 ? unsatisfiableWriteConcern(request.body) : undefined;
  return writeConcernError ? { ...reply, writeConcernError } : reply;
}

/** The commands that kill sessions are not among the operations they kill. */
const SESSION_KILLERS = new Set(["killSessions", "killAllSessions"]);

/** What interrupts the command when killSessions names its session; none without a session. */
function killSignal(request: CommandRequest, server: ServerState): AbortSignal | undefined {
  const lsid = request.body.lsid as Document | undefined;
  if (!lsid || SESSION_KILLERS.has(request.name)) return undefined;
  return server.sessions.operationSignal(lsid);
}

/** failCommand's blockConnection: a sleep that killSessions interrupts, as on mongod. */
async function block(ms: number, killed: AbortSignal | undefined): Promise<void> {
  try {
    await sleep(ms, undefined, { signal: killed });
  } catch (error) {
    if (killed?.aborted) throw interrupted();
    throw error;
  }
}

/** The fail point's effect before the command runs; undefined lets the command run. */
async function applyFailure(
  failure: FailCommandData,
  request: CommandRequest,
  labels: LabelContext,
): Promise<Document | undefined> {
  if (failure.blockConnection && failure.blockTimeMS) await block(failure.blockTimeMS, request.killed);
  if (failure.closeConnection) {
    request.connection.destroy();
    return { ok: 0 }; // never sent: the socket is gone
  }
  if (failure.errorCode === undefined) return undefined;
  const code = failure.errorCode;
  const reply: Document = {
    ok: 0,
    errmsg: `Failing command ${request.name} via 'failCommand' failpoint`,
    code,
    codeName: codeNameOf(code),
  };
  const errorLabels = failure.errorLabels ?? errorLabelsFor(code, false, labels);
  if (errorLabels.length > 0) reply.errorLabels = errorLabels;
  return reply;
}

function withWriteConcernError(reply: Document, failure: FailCommandData, labels: LabelContext): Document {
  const wce = failure.writeConcernError!;
  const result: Document = { ...reply, writeConcernError: wce };
  const code = Number((wce as { code?: unknown }).code ?? 0);
  const errorLabels = failure.errorLabels ?? writeConcernErrorLabels(code, labels);
  if (errorLabels.length > 0) result.errorLabels = errorLabels;
  return result;
}

export function errorReply(error: unknown, labels: LabelContext): Document {
  if (error instanceof ServerError) {
    const reply = error.toReply();
    if (error.errorLabels.length === 0) {
      const added = errorLabelsFor(error.code, false, labels);
      if (added.length > 0) reply.errorLabels = added;
    }
    return reply;
  }
  const message = error instanceof Error ? error.message : String(error);
  return {
    ok: 0,
    errmsg: `internal error in ${labels.commandName}: ${message}`,
    code: 1,
    codeName: "InternalError",
  };
}

function isChangeStreamCommand(request: CommandRequest, server: ServerState): boolean {
  if (request.name === "aggregate") {
    const first = (Array.isArray(request.body.pipeline) ? request.body.pipeline[0] : undefined) as
      Document | undefined;
    return first !== undefined && typeof first === "object" && "$changeStream" in first;
  }
  if (request.name !== "getMore") return false;
  const id = bigintValue(request.body.getMore);
  const cursor = id === undefined ? undefined : server.cursors.find(id);
  return cursor !== undefined && !(cursor instanceof ArrayCursor);
}

function stampClusterTime(reply: Document, server: ServerState): Document {
  const clusterTime = server.clock.current();
  return { ...reply, $clusterTime: { clusterTime, signature: ZERO_SIGNATURE }, operationTime: clusterTime };
}
