// Which MongoDB the sidecar talks to: MONGODB_URI, or, when it is unset, the embedded
// in-memory server, which keeps nothing after the process exits. Connecting retries with
// backoff for connectTimeoutSeconds, logging each attempt, then fails with a line a person
// can act on (src/cli/failures.ts).
import { setTimeout as delay } from "node:timers/promises";
import { MongoClient, ReadPreference, type Db, type MongoClientOptions } from "mongodb";
import type { Config } from "../config/schema.js";
import { redactUriPasswords } from "../config/mongodb-uri.js";
import { CODE, codeInCauses } from "../mongodb-codes.js";
import type { Logger } from "../ops/logger.js";
import type { ShutdownStack } from "../ops/shutdown.js";
import { leaseClientOptions } from "../stream/lease/lease.js";
import { startEmbeddedMongo } from "./embedded-server.js";
import { EXIT_STATUS, OperationalError } from "./failures.js";

export interface Deployment {
  client: MongoClient;
  db: Db;
  /** The writer lease's own handle (WriterLease keeperDb), when asked for. */
  leaseDb?: Db;
}

/** Each attempt's server selection: short, so that the retries (and their log lines) show progress. */
const ATTEMPT_TIMEOUT_MS = 2_000;
const MIN_ATTEMPT_TIMEOUT_MS = 500;
const MAX_BACKOFF_MS = 10_000;

// The driver reports refused credentials as a server error, or inside a server selection
// timeout when the handshake kept failing; retrying cannot fix either.
function isAuthenticationFailure(error: unknown): boolean {
  return codeInCauses(error) === CODE.AuthenticationFailed || /authentication failed/i.test(String(error));
}

function authenticationError(error: unknown, uri: string): OperationalError {
  return new OperationalError(
    `MongoDB refused the credentials in MONGODB_URI (${redactUriPasswords(uri)}): authentication failed; ` +
      "check the user name, the password and authSource",
    EXIT_STATUS.authentication,
    {},
    { cause: error },
  );
}

function unreachableError(error: unknown, uri: string, seconds: number): OperationalError {
  return new OperationalError(
    `cannot reach MongoDB at ${redactUriPasswords(uri)} after trying for ${seconds} s: ${(error as Error).message}; ` +
      "check MONGODB_URI's hosts and ports, the network and the replica set, or raise connectTimeoutSeconds",
    EXIT_STATUS.unreachable,
    {},
    { cause: error },
  );
}

interface ConnectAttempts {
  uri: string;
  timeoutSeconds: number;
  logger: Logger;
  shutdown: ShutdownStack;
}

const CLIENT_OPTIONS = { appName: "mongo-pattern-sidecar" };

/**
 * Every read of the sidecar decides a write (a preview, a sweep's page, a parked retry), so
 * none follows the URI's read preference: a lagging secondary would show a deleted review as
 * still there, and a correction would copy it back.
 */
const PRIMARY_READS = { readPreference: ReadPreference.primary };

/**
 * Waits until the deployment answers, retrying with backoff (1 s, 2 s, 4 s ... 10 s) until
 * timeoutSeconds have passed. Each attempt is a short-lived client with a short server
 * selection timeout, so that the sidecar's own client keeps the driver's defaults.
 */
async function waitUntilReachable({ uri, timeoutSeconds, logger, shutdown }: ConnectAttempts): Promise<void> {
  const deadline = Date.now() + timeoutSeconds * 1000;
  let probe: MongoClient | undefined;
  shutdown.defer("mongodb probe", () => probe?.close());
  // The wait between attempts is what keeps the process alive when nothing else does (sweep,
  // migrate): a stop ends it instead of leaving it unreferenced.
  const stopWaiting = new AbortController();
  shutdown.defer("mongodb retry wait", () => stopWaiting.abort());
  for (let attempt = 1; ; attempt++) {
    const remainingMs = deadline - Date.now();
    const serverSelectionTimeoutMS = Math.max(
      MIN_ATTEMPT_TIMEOUT_MS,
      Math.min(ATTEMPT_TIMEOUT_MS, remainingMs),
    );
    probe = new MongoClient(uri, { ...CLIENT_OPTIONS, serverSelectionTimeoutMS });
    try {
      await probe.connect();
      await probe.close();
      return;
    } catch (error) {
      await probe.close();
      if (isAuthenticationFailure(error)) throw authenticationError(error, uri);
      const retryInMs = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** (attempt - 1), deadline - Date.now());
      if (shutdown.closed || retryInMs <= 0) throw unreachableError(error, uri, timeoutSeconds);
      const deployment = redactUriPasswords(uri);
      logger.warn({ err: error, attempt, retryInMs, deployment }, "cannot reach MongoDB yet; retrying");
      try {
        await delay(retryInMs, undefined, { signal: stopWaiting.signal });
      } catch {
        throw unreachableError(error, uri, timeoutSeconds);
      }
    }
  }
}

async function connectClient(
  attempts: ConnectAttempts,
  extraOptions: MongoClientOptions = {},
): Promise<MongoClient> {
  await waitUntilReachable(attempts);
  const client = new MongoClient(attempts.uri, { ...CLIENT_OPTIONS, ...extraOptions });
  attempts.shutdown.defer("mongodb client", () => client.close());
  try {
    return await client.connect();
  } catch (error) {
    if (isAuthenticationFailure(error)) throw authenticationError(error, attempts.uri);
    throw unreachableError(error, attempts.uri, attempts.timeoutSeconds);
  }
}

// Reading the state collection needs the `find` the sidecar's role grants on the database:
// refused here, the user may not use this database at all, and nothing would work.
async function checkAuthorised(db: Db, stateCollection: string): Promise<void> {
  try {
    await db.collection(stateCollection).findOne({}, { projection: { _id: 1 } });
  } catch (error) {
    if (codeInCauses(error) !== CODE.Unauthorized) throw error;
    throw new OperationalError(
      `the MongoDB user in MONGODB_URI may not read the database "${db.databaseName}": ${(error as Error).message}; ` +
        "grant it the sidecar's role (deploy/mongodb-role.js) on that database, or set database (SIDECAR_DATABASE)",
      EXIT_STATUS.notAuthorised,
      {},
      { cause: error },
    );
  }
}

/**
 * MongoDB 5.0 is wire version 13: the stream's filters use $getField and the readers $lookup
 * with both localField and a pipeline, which earlier servers refuse (pre-images, for deletes
 * in a full set, need 6.0: a rule runs without them, with a warning, on 5.0).
 */
const MIN_WIRE_VERSION = 13;

/** Refuses, in one line, a deployment older than MongoDB 5.0. */
export function checkServerVersion(hello: { maxWireVersion?: unknown }, uri: string): void {
  const wireVersion = typeof hello.maxWireVersion === "number" ? hello.maxWireVersion : 0;
  if (wireVersion >= MIN_WIRE_VERSION) return;
  throw new OperationalError(
    `MongoDB at ${redactUriPasswords(uri)} is older than 5.0 (wire version ${wireVersion}); ` +
      "the sidecar needs MongoDB 5.0 or later (6.0 for deletes in a full set to reach its source): upgrade it",
    EXIT_STATUS.serverTooOld,
  );
}

async function embeddedUri(shutdown: ShutdownStack): Promise<string> {
  const server = await startEmbeddedMongo({ host: "127.0.0.1", port: 0 });
  // A stop while it started has already run the cleanups: close it here, or it keeps the process alive.
  if (shutdown.closed) {
    await server.close();
    throw new Error("stopped while the embedded server started");
  }
  shutdown.defer("embedded server", () => server.close());
  return server.uri;
}

export async function connectDeployment(
  config: Config,
  logger: Logger,
  shutdown: ShutdownStack,
  options: { leaseClient?: boolean } = {},
): Promise<Deployment> {
  // loadConfig has folded MONGODB_URI into mongodbUri, and the URI's path into database.
  const embedded = config.mongodbUri === undefined;
  const uri = config.mongodbUri ?? (await embeddedUri(shutdown));
  const attempts = { uri, timeoutSeconds: config.connectTimeoutSeconds, logger, shutdown };
  const client = await connectClient(attempts);
  const db = client.db(config.database, PRIMARY_READS);
  checkServerVersion(await db.command({ hello: 1 }), uri);
  await checkAuthorised(db, config.stateCollection);
  const leaseDb = options.leaseClient
    ? (await connectClient(attempts, leaseClientOptions(config.leaseSeconds))).db(
        config.database,
        PRIMARY_READS,
      )
    : undefined;
  logger.info({ deployment: redactUriPasswords(uri), database: config.database, embedded }, "connected");
  return { client, db, leaseDb };
}
