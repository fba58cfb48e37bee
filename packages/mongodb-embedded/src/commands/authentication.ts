// With authentication on: createUser, SCRAM-SHA-256 over saslStart/saslContinue (the driver's
// default mechanism, offered in hello's saslSupportedMechs), and the commands a connection may
// run before it authenticates, as mongod answers them.
import { Binary, Int32, type Document } from "bson";
import { parseClientFirst, serverFinal, serverFirst } from "../auth/scram-sha-256.js";
import { userDigest, type UserName } from "../auth/users.js";
import { ErrorCode, ServerError } from "../errors.js";
import type { ServerState } from "../server-state.js";
import type { CommandHandler, CommandRequest } from "./command-context.js";

const MECHANISM = "SCRAM-SHA-256";

/** Commands mongod runs for a connection that has not authenticated (their requiresAuth is false). */
const WITHOUT_AUTHENTICATION = new Set([
  "hello",
  "isMaster",
  "ismaster",
  "ping",
  "buildInfo",
  "buildinfo",
  "saslStart",
  "saslContinue",
]);

/**
 * Refuses a command of a connection that has not authenticated, but the ones above and the
 * first createUser (mongod's localhost exception: any user may be created while there is none).
 */
export function assertAuthenticated(request: CommandRequest, server: ServerState): void {
  if (!server.authEnabled || request.connection.user || WITHOUT_AUTHENTICATION.has(request.name)) return;
  if (request.name === "createUser" && server.users.isEmpty) return;
  throw new ServerError(13, "Unauthorized", `Command ${request.name} requires authentication`);
}

/** The session id as mongod keys it: with the authenticated user's digest (uid). */
export function ownedSessionId(lsid: Document, user: UserName | undefined): Document {
  return user ? { id: lsid.id as unknown, uid: userDigest(user) } : lsid;
}

/** hello's saslSupportedMechs: "<db>.<user>" asks which mechanisms that user has. */
export function supportedMechanisms(request: CommandRequest, server: ServerState): Document {
  const asked: unknown = request.body.saslSupportedMechs;
  if (!server.authEnabled || typeof asked !== "string") return {};
  const dot = asked.indexOf(".");
  const name = { db: asked.slice(0, dot), user: asked.slice(dot + 1) };
  return server.users.credentialsOf(name) ? { saslSupportedMechs: [MECHANISM] } : {};
}

export const createUser: CommandHandler = (request, server) => {
  const user: unknown = request.body.createUser;
  const password: unknown = request.body.pwd;
  if (typeof user !== "string" || user === "" || typeof password !== "string" || password === "")
    throw new ServerError(ErrorCode.BadValue, "BadValue", "createUser needs a user name and a pwd");
  server.users.create({ user, db: request.db }, password);
  return { ok: 1 };
};

const authenticationFailed = () => new ServerError(18, "AuthenticationFailed", "Authentication failed.");

function payloadText(payload: unknown): string {
  return payload instanceof Binary ? Buffer.from(payload.buffer).toString("utf8") : "";
}

export const saslStart: CommandHandler = (request, server) => {
  if (request.body.mechanism !== MECHANISM)
    throw new ServerError(
      334,
      "MechanismUnavailable",
      `Received authentication for mechanism ${String(request.body.mechanism)} which is not enabled`,
    );
  const client = parseClientFirst(payloadText(request.body.payload));
  const credentials = client && server.users.credentialsOf({ user: client.user, db: request.db });
  if (!client || !credentials) throw authenticationFailed();
  const { conversation, message } = serverFirst(client, request.db, credentials);
  request.connection.scram = conversation;
  return { conversationId: new Int32(1), done: false, payload: new Binary(Buffer.from(message)), ok: 1 };
};

// The driver asks to skip SCRAM's empty last exchange (skipEmptyExchange), so this step is done.
export const saslContinue: CommandHandler = (request) => {
  const conversation = request.connection.scram;
  request.connection.scram = undefined;
  if (!conversation) throw new ServerError(17, "ProtocolError", "No SASL session state found");
  const final = serverFinal(conversation, payloadText(request.body.payload));
  if (final === undefined) throw authenticationFailed();
  request.connection.user = { user: conversation.user, db: conversation.db };
  return { conversationId: new Int32(1), done: true, payload: new Binary(Buffer.from(final)), ok: 1 };
};
