// Commands that describe the server rather than data: ping, buildInfo, getParameter,
// serverStatus, hostInfo, and the few administrative commands the driver and tests send.
import { hostname } from "node:os";
import { Int32, Long, type Document } from "bson";
import { ErrorCode, ServerError } from "../errors.js";
import type { CommandHandler } from "./command-context.js";
import type { ServerState } from "../server-state.js";
import { compatibleVersions, type ServerVersion } from "../server-version.js";

export const ping: CommandHandler = () => ({ ok: 1 });

export const buildInfo: CommandHandler = (_request, server) => ({
  version: server.version.version,
  gitVersion: "embedded",
  versionArray: server.version.versionArray.map((part) => new Int32(part)),
  bits: new Int32(64),
  maxBsonObjectSize: new Int32(16 * 1024 * 1024),
  storageEngines: ["inMemory"],
  modules: [],
  ok: 1,
});

/** The parameters tests and drivers ask about; anything else is answered like mongod does. */
const PARAMETERS: Document = {
  enableTestCommands: true,
  requireApiVersion: false,
  maxTransactionLockRequestTimeoutMillis: new Int32(5),
};

export const getParameter: CommandHandler = (request, server) => {
  const parameters = {
    ...PARAMETERS,
    featureCompatibilityVersion: { version: server.parameters.featureCompatibilityVersion },
    cursorTimeoutMillis: Long.fromNumber(server.parameters.cursorTimeoutMillis),
    transactionLifetimeLimitSeconds: new Int32(server.transactionLifetimeLimitSeconds),
    embeddedTransactionCacheWrites: new Int32(server.parameters.embeddedTransactionCacheWrites),
  };
  const wanted = request.body.getParameter;
  if (wanted === "*" || (typeof wanted === "object" && wanted !== null)) {
    return { ...parameters, ok: 1 };
  }
  const reply: Document = { ok: 1 };
  for (const name of parameterNames(request.body, "getParameter")) {
    if (!(name in parameters)) {
      return { ok: 0, errmsg: "no option found to get", code: 72, codeName: "InvalidOptions" };
    }
    reply[name] = parameters[name as keyof typeof parameters];
  }
  return reply;
};

/**
 * The parameters setParameter may change, with the least value each takes (mongod's IDL
 * validators: src/mongo/db/transaction/transaction_participant.idl for the lifetime), what it
 * answers as `was`, and how it is set.
 */
const SETTABLE: Record<
  string,
  { least: number; get(server: ServerState): Document[string]; set(server: ServerState, value: number): void }
> = {
  cursorTimeoutMillis: {
    least: 0,
    get: (server) => Long.fromNumber(server.parameters.cursorTimeoutMillis),
    set: (server, value) => (server.parameters.cursorTimeoutMillis = value),
  },
  transactionLifetimeLimitSeconds: {
    least: 1,
    get: (server) => new Int32(server.transactionLifetimeLimitSeconds),
    set: (server, value) => (server.transactionLifetimeLimitSeconds = value),
  },
  // The embedded server's own (mongod has no such parameter): sessions/cache-pressure.ts.
  embeddedTransactionCacheWrites: {
    least: 0,
    get: (server) => new Int32(server.parameters.embeddedTransactionCacheWrites),
    set: (server, value) => (server.parameters.embeddedTransactionCacheWrites = value),
  },
};

export const setParameter: CommandHandler = (request, server) => {
  const reply: Document = { ok: 1 };
  for (const name of parameterNames(request.body, "setParameter")) {
    const parameter = SETTABLE[name];
    if (parameter === undefined)
      throw new ServerError(
        ErrorCode.InvalidOptions,
        "InvalidOptions",
        `attempted to set unrecognized parameter [${name}]`,
      );
    const value = Number(String(request.body[name]));
    if (!Number.isInteger(value) || value < parameter.least)
      throw new ServerError(
        ErrorCode.BadValue,
        "BadValue",
        `Invalid value for parameter ${name}: ${String(request.body[name])} is not greater than or equal to ${parameter.least}`,
      );
    reply.was = parameter.get(server);
    parameter.set(server, value);
  }
  return reply;
};

/**
 * setFeatureCompatibilityVersion: an 8.0 server may be set back to 7.0 and forward again, each
 * change only with `confirm: true` (mongod asks for it since 7.0). Only bulkWrite depends on it.
 */
export const setFeatureCompatibilityVersion: CommandHandler = (request, server) => {
  if (request.db !== "admin") {
    throw new ServerError(
      13,
      "Unauthorized",
      "setFeatureCompatibilityVersion may only be run against the admin database.",
    );
  }
  const wanted = request.body.setFeatureCompatibilityVersion as unknown;
  const compatible = compatibleVersions(server.version.release);
  const version = compatible.find((candidate) => candidate === wanted);
  if (version === undefined) {
    const expected = compatible.map((candidate) => `'${candidate}'`).join(" or ");
    throw new ServerError(
      ErrorCode.BadValue,
      "BadValue",
      `Invalid feature compatibility version value '${String(wanted)}'; expected ${expected}.`,
    );
  }
  const current = server.parameters.featureCompatibilityVersion;
  if (version !== current && request.body.confirm !== true) {
    throw new ServerError(7369100, "Location7369100", confirmationMessage(version, current));
  }
  server.parameters.featureCompatibilityVersion = version;
  return { ok: 1 };
};

function confirmationMessage(version: ServerVersion, current: ServerVersion): string {
  const downgrade = compatibleVersions(current).includes(version);
  return downgrade
    ? "Once you have downgraded the FCV, if you choose to downgrade the binary version, it will require support assistance. Please re-run this command with 'confirm: true' to acknowledge this and continue with the FCV downgrade."
    : `Once you have upgraded to ${version}, you will not be able to downgrade FCV and binary version without support assistance. Please re-run this command with 'confirm: true' to acknowledge this and continue with the FCV upgrade.`;
}

function parameterNames(body: Document, command: string): string[] {
  return Object.keys(body).filter((name) => name !== command && !name.startsWith("$") && name !== "lsid");
}

export const serverStatus: CommandHandler = (_request, server) => ({
  host: server.address,
  version: server.version.version,
  process: "mongod",
  pid: process.pid,
  uptime: (Date.now() - server.startedAt.getTime()) / 1000,
  localTime: new Date(),
  connections: { current: new Int32(server.openConnections()) },
  storageEngine: { name: "inMemory", supportsCommittedReads: true },
  metrics: { commands: server.commandCounts.toDocument() },
  ok: 1,
});

export const hostInfo: CommandHandler = () => ({
  system: { currentTime: new Date(), hostname: hostname() },
  os: { type: process.platform },
  extra: {},
  ok: 1,
});

/** Accepted and ignored: there is nothing to kill beyond what endSessions already does. */
export const acknowledge: CommandHandler = () => ({ ok: 1 });

export const whatsmyuri: CommandHandler = (_request, server) => ({ you: server.address, ok: 1 });
