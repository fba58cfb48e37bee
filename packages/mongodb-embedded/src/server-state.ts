// Everything the command handlers share: the address we answer for, the cluster clock, the
// data, open cursors, sessions, the change log and fail points. One per running server.
import { Users } from "./auth/users.js";
import { ChangeLog } from "./changestream/change-log.js";
import { CommandCounts } from "./commands/command-counts.js";
import { CursorRegistry } from "./commands/cursor-registry.js";
import { FailPoints } from "./commands/fail-points.js";
import { LockTable } from "./sessions/lock-table.js";
import { OperationScope, type WriteHooks } from "./sessions/operation-scope.js";
import { DEFAULT_TRANSACTION_LIFETIME_LIMIT_SECONDS, SessionRegistry } from "./sessions/session-registry.js";
import { TransactionReaper } from "./sessions/transaction-reaper.js";
import type { Transaction } from "./sessions/transaction.js";
import { Catalog } from "./storage/catalog.js";
import { ClusterClock } from "./storage/cluster-clock.js";
import { LaggedSnapshots } from "./storage/lagged-snapshots.js";
import type { StoredCollection } from "./storage/stored-collection.js";
import { versionFacts, type ServerVersion, type VersionFacts } from "./server-version.js";

export interface ServerStateOptions {
  host: string;
  port: number;
  changeHistoryLimit: number;
  /** The MongoDB release it presents as (server-version.ts). */
  version: ServerVersion;
  /** The startup value of transactionLifetimeLimitSeconds (default 60, as mongod's). */
  transactionLifetimeLimitSeconds?: number;
  /** Serve reads preferring a secondary from the state this many milliseconds old (0: none). */
  secondaryLagMs?: number;
  /** Require authentication (SCRAM-SHA-256, users made by createUser), as mongod's --auth. */
  auth?: boolean;
}

/** mongod's default cursorTimeoutMillis: 10 minutes. */
const DEFAULT_CURSOR_TIMEOUT_MS = 600_000;

/** How often idle cursors (cursorTimeoutMillis) and idle sessions are looked for. */
const IDLE_REAP_INTERVAL_MS = 1_000;

export class ServerState {
  readonly host: string;
  readonly port: number;
  /** "host:port" exactly as in the connection string: the driver matches hello's hosts on it. */
  readonly address: string;
  readonly clock = new ClusterClock();
  readonly startedAt = new Date();
  readonly version: VersionFacts;
  readonly changeLog: ChangeLog;
  readonly catalog: Catalog;
  /** With secondaryLagMs: the states a lagging secondary would serve (commands/read-view.ts). */
  readonly laggedSnapshots: LaggedSnapshots | undefined;
  readonly locks = new LockTable();
  readonly sessions: SessionRegistry;
  readonly cursors = new CursorRegistry();
  readonly failPoints = new FailPoints();
  readonly authEnabled: boolean;
  readonly users = new Users();
  /** serverStatus metrics.commands. */
  readonly commandCounts = new CommandCounts();
  /** The parameters setParameter may change, but transactionLifetimeLimitSeconds (below). */
  readonly parameters: {
    cursorTimeoutMillis: number;
    featureCompatibilityVersion: ServerVersion;
    /** The documents a transaction may write before the cache rolls it back (0: never): cache-pressure.ts. */
    embeddedTransactionCacheWrites: number;
  };
  private lifetimeLimitSeconds: number;
  private readonly idleReaper: NodeJS.Timeout;
  private readonly transactionReaper: TransactionReaper;
  private connectionCount = 0;
  private nextConnectionId = 1;

  constructor(options: ServerStateOptions) {
    this.host = options.host;
    this.port = options.port;
    this.address = `${options.host}:${options.port}`;
    this.version = versionFacts(options.version);
    this.authEnabled = options.auth ?? false;
    this.parameters = {
      cursorTimeoutMillis: DEFAULT_CURSOR_TIMEOUT_MS,
      featureCompatibilityVersion: options.version,
      embeddedTransactionCacheWrites: 0,
    };
    this.lifetimeLimitSeconds =
      options.transactionLifetimeLimitSeconds ?? DEFAULT_TRANSACTION_LIFETIME_LIMIT_SECONDS;
    this.changeLog = new ChangeLog({ historyLimit: options.changeHistoryLimit });
    this.catalog = new Catalog(this.clock, (records, clusterTime, wallTime) => {
      this.changeLog.append(records, clusterTime, wallTime);
      this.laggedSnapshots?.pin();
    });
    this.laggedSnapshots = options.secondaryLagMs
      ? new LaggedSnapshots(this.catalog, options.secondaryLagMs)
      : undefined;
    this.sessions = new SessionRegistry(this.catalog, this.locks, () => this.lifetimeLimitSeconds);
    this.idleReaper = setInterval(() => {
      this.sessions.expireIdle();
      this.cursors.killIdle(this.parameters.cursorTimeoutMillis);
    }, IDLE_REAP_INTERVAL_MS);
    this.idleReaper.unref();
    this.transactionReaper = new TransactionReaper(() => this.sessions.abortExpired());
    this.transactionReaper.schedule(this.lifetimeLimitSeconds);
  }

  get transactionLifetimeLimitSeconds(): number {
    return this.lifetimeLimitSeconds;
  }

  /** setParameter transactionLifetimeLimitSeconds: it bounds the transactions started from now on. */
  set transactionLifetimeLimitSeconds(seconds: number) {
    this.lifetimeLimitSeconds = seconds;
    this.transactionReaper.schedule(seconds);
  }

  /**
   * The collection a write goes to, created if missing: in a transaction, as its own until it
   * commits (MongoDB 4.4 and later create collections inside transactions).
   */
  collectionForWrite(db: string, name: string, transaction?: Transaction): StoredCollection {
    const existed = this.catalog.collection(db, name);
    const collection = this.catalog.ensureCollection(db, name, transaction);
    if (transaction && !existed) transaction.createdCollections.push(collection);
    return collection;
  }

  /** The reads and writes of one operation, in `transaction` or on its own. */
  scope(
    transaction: Transaction | undefined,
    maxTimeMS?: number,
    killed?: AbortSignal,
    hooks?: WriteHooks,
  ): OperationScope {
    const cacheWrites = this.parameters.embeddedTransactionCacheWrites || undefined;
    return new OperationScope(this.catalog, this.locks, transaction, maxTimeMS || undefined, killed, {
      ...hooks,
      cacheWrites,
    });
  }

  connectionOpened(): number {
    this.connectionCount += 1;
    return this.nextConnectionId++;
  }

  connectionClosed(): void {
    this.connectionCount -= 1;
  }

  openConnections(): number {
    return this.connectionCount;
  }

  /** Ends cursors, transactions and the change log; idempotent. */
  close(): void {
    clearInterval(this.idleReaper);
    this.transactionReaper.stop();
    this.cursors.closeAll();
    this.sessions.abortAll();
    this.changeLog.close();
  }
}
