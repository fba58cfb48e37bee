// The `./testing` entry: every test's MongoDB (this package's and the sidecar's), the replica
// set at MONGODB_URI or else this server, once per test file on a free loopback port.
// Tests must not assume which: they use fresh database names and clean up after themselves.
import { randomBytes } from "node:crypto";
import { after, before } from "node:test";
import { MongoClient, type Db, type MongoClientOptions } from "mongodb";
import {
  startEmbeddedServer,
  type EmbeddedServer,
  type EmbeddedServerOptions,
  type ServerVersion,
} from "./index.js";

export type { ServerVersion } from "./index.js";

export interface TestMongo {
  /** Connection string for the deployment (no database in the path). */
  uri: string;
  /** A connected client; closed by `close()`. */
  client: MongoClient;
  /** True when the tests run against the embedded server rather than MONGODB_URI. */
  embedded: boolean;
  /** Another client to the same deployment, closed by `close()` too. */
  newClient(options?: MongoClientOptions): Promise<MongoClient>;
  close(): Promise<void>;
}

/**
 * The release the embedded server presents as, unless a test asks for another: the newest it
 * emulates, as users upgrade. Tests of what differs on 7.0 start one of those.
 */
const DEFAULT_SERVER_VERSION: ServerVersion = "8.0";

/**
 * `uri` names a deployment to use instead (a benchmark's server in a process of its own);
 * MONGODB_URI still wins, so that a run against a real replica set stays one. The rest are the
 * embedded server's startup options (EmbeddedServerOptions): a real one is what it is.
 */
export async function startTestMongo(
  options: { uri?: string } & Pick<
    EmbeddedServerOptions,
    "serverVersion" | "changeHistoryLimit" | "transactionLifetimeLimitSeconds" | "secondaryLagMs" | "auth"
  > = {},
): Promise<TestMongo> {
  const external = process.env.MONGODB_URI ?? options.uri;
  let server: EmbeddedServer | undefined;
  let uri: string;
  if (external) {
    uri = external;
  } else {
    const serverVersion = options.serverVersion ?? DEFAULT_SERVER_VERSION;
    const { changeHistoryLimit, transactionLifetimeLimitSeconds, secondaryLagMs, auth } = options;
    server = await startEmbeddedServer({
      host: "127.0.0.1",
      port: 0,
      serverVersion,
      changeHistoryLimit,
      transactionLifetimeLimitSeconds,
      secondaryLagMs,
      auth,
    });
    uri = server.uri;
  }
  const clients: MongoClient[] = [];
  const newClient = async (options: MongoClientOptions = {}) => {
    const client = new MongoClient(uri, { serverSelectionTimeoutMS: 5000, ...options });
    clients.push(client);
    await client.connect();
    return client;
  };
  const client = await newClient();
  let closing: Promise<void> | undefined;
  return {
    uri,
    client,
    embedded: server !== undefined,
    newClient,
    close() {
      closing ??= (async () => {
        await Promise.all(clients.map((c) => c.close()));
        await server?.close();
      })();
      return closing;
    },
  };
}

/** A database name no other test (or earlier run against a real server) uses. */
export function uniqueDatabaseName(label: string): string {
  return `t_${label.replace(/[^A-Za-z0-9_]/g, "_").slice(0, 30)}_${randomBytes(4).toString("hex")}`;
}

export interface TestDatabase {
  mongo: TestMongo;
  /** A fresh database (named by uniqueDatabaseName), through `mongo.client`. */
  db: Db;
}

/**
 * Registers the test file's before/after hooks: a test deployment and a fresh database, dropped
 * and closed after the file. Read the fields inside tests. A file's own setup on the database
 * goes in `setUp` (Node 20 starts a file's top-level `before` hooks without waiting for the
 * earlier ones, so a hook of the file's own could run before the database exists), and what
 * must end before the drop (a sidecar) goes in `tearDown`.
 */
export function useTestDatabase(
  label: string,
  hooks: {
    setUp?: (fixture: TestDatabase) => Promise<void> | void;
    tearDown?: () => Promise<void>;
    /** The embedded server's release, where a test is about what differs (startTestMongo). */
    serverVersion?: ServerVersion;
    /** The embedded server's lagging secondary reads (startTestMongo). */
    secondaryLagMs?: number;
  } = {},
): TestDatabase {
  const fixture = {} as TestDatabase;
  before(async () => {
    const { serverVersion, secondaryLagMs } = hooks;
    fixture.mongo = await startTestMongo({ serverVersion, secondaryLagMs });
    fixture.db = fixture.mongo.client.db(uniqueDatabaseName(label));
    await hooks.setUp?.(fixture);
  });
  after(async () => {
    await hooks.tearDown?.();
    await fixture.db?.dropDatabase();
    await fixture.mongo?.close();
  });
  return fixture;
}
