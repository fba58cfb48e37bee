// Public entry of the embedded MongoDB-compatible server; beside it only `./testing` (the
// tests' MongoDB) is exported: nothing outside the package imports anything else from it.
import { createServer, type Server, type Socket } from "node:net";
import { dispatchCommand } from "./commands/dispatcher.js";
import { ServerState } from "./server-state.js";
import type { ServerVersion } from "./server-version.js";

export type { ServerVersion } from "./server-version.js";
import { Connection } from "./wire/connection.js";

export interface EmbeddedServerOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** How many change events the change log keeps before older resume points are lost (286). */
  changeHistoryLimit?: number;
  /** The MongoDB release it presents as: "7.0" (the default) or "8.0" (adds bulkWrite). */
  serverVersion?: ServerVersion;
  /** mongod's startup parameter (default 60; at least 1); setParameter changes it later. */
  transactionLifetimeLimitSeconds?: number;
  /**
   * Reads with a read preference other than primary (secondary, secondaryPreferred, nearest)
   * see the data as it was this many milliseconds ago, as from a lagging secondary (default 0).
   */
  secondaryLagMs?: number;
  /** Require authentication, as mongod's --auth: SCRAM-SHA-256 users made by createUser. */
  auth?: boolean;
}

export interface EmbeddedServer {
  readonly host: string;
  readonly port: number;
  /** `mongodb://host:port/?replicaSet=rs0` */
  readonly uri: string;
  /** Stops accepting, closes every connection and cursor; idempotent. */
  close(): Promise<void>;
}

const DEFAULT_CHANGE_HISTORY_LIMIT = 100_000;

export async function startEmbeddedServer(options: EmbeddedServerOptions = {}): Promise<EmbeddedServer> {
  const lifetimeLimit = options.transactionLifetimeLimitSeconds;
  if (lifetimeLimit !== undefined && !(Number.isInteger(lifetimeLimit) && lifetimeLimit >= 1))
    throw new Error(`transactionLifetimeLimitSeconds must be an integer of at least 1, got ${lifetimeLimit}`);
  const host = options.host ?? "127.0.0.1";
  const listener = createServer();
  await listen(listener, host, options.port ?? 0);
  const address = listener.address();
  if (address === null || typeof address === "string") throw new Error("embedded server: no TCP address");
  const state = new ServerState({
    host,
    port: address.port,
    changeHistoryLimit: options.changeHistoryLimit ?? DEFAULT_CHANGE_HISTORY_LIMIT,
    version: options.serverVersion ?? "7.0",
    transactionLifetimeLimitSeconds: options.transactionLifetimeLimitSeconds,
    secondaryLagMs: options.secondaryLagMs,
    auth: options.auth,
  });
  const connections = new Set<Connection>();
  listener.on("connection", (socket: Socket) => {
    const connection = new Connection(socket, state.connectionOpened(), (body, db, conn) =>
      dispatchCommand(body, db, conn, state),
    );
    connections.add(connection);
    socket.once("close", () => {
      connections.delete(connection);
      state.connectionClosed();
    });
  });

  let closing: Promise<void> | undefined;
  return {
    host,
    port: address.port,
    uri: `mongodb://${host}:${address.port}/?replicaSet=rs0`,
    close() {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => listener.close(() => resolve()));
        state.close();
        for (const connection of connections) connection.destroy();
        await Promise.all([...connections].map((c) => c.closed()));
        await stopped;
      })();
      return closing;
    },
  };
}

function listen(listener: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    listener.once("error", reject);
    listener.listen(port, host, () => {
      listener.off("error", reject);
      resolve();
    });
  });
}
