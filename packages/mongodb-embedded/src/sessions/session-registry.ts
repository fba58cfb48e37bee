// Logical sessions: the transaction each one runs and the replies of its retryable writes.
// mongod keys both on (lsid, txnNumber); a higher txnNumber supersedes everything before it.
import type { Document } from "bson";
import type { Catalog, DocumentWrite } from "../storage/catalog.js";
import type { LockTable } from "./lock-table.js";
import { Transaction } from "./transaction.js";
import { noSuchTransaction, transactionCommitted, transactionTooOld } from "./transaction-errors.js";

interface SessionEntry {
  lsid: Document;
  txnNumber: bigint;
  transaction: Transaction | undefined;
  /** The reply of the retryable write numbered `txnNumber`, once it has run. */
  retryReply: Document | undefined;
  /** Its statements that wrote, by index, with what each reported: a retry skips them. */
  executedStatements: Map<number, Document>;
  /** When a command last named this session ($listLocalSessions reports it). */
  lastUse: Date;
  /** Cursors opened in this session: killSessions closes them. */
  cursors: Set<bigint>;
  /**
   * Aborted by killSessions, which interrupts every operation running in the session: one for
   * all of them, made by the first to begin after the last kill (most commands carry a
   * session, and a controller each would be garbage at every command), then replaced, so that
   * the operations begun after a kill run on.
   */
  killSwitch: AbortController | undefined;
}

/** A session as $listLocalSessions sees it. */
export interface LocalSession {
  lsid: Document;
  lastUse: Date;
}

/** mongod's transactionLifetimeLimitSeconds default. */
export const DEFAULT_TRANSACTION_LIFETIME_LIMIT_SECONDS = 60;

/** mongod's localLogicalSessionTimeoutMinutes default (30), after which idle sessions go. */
export const SESSION_IDLE_LIMIT_MS = 30 * 60_000;

export class SessionRegistry {
  private readonly sessions = new Map<string, SessionEntry>();
  /**
   * The last lsid document keyed, and its key: a command names its session four or five times
   * (its use, its kill switch, its transaction, its retryable write), each time with the same
   * document, which is never changed once parsed; a key made anew each time would be garbage.
   */
  private lastKeyed: { lsid: Document; key: string } | undefined;

  constructor(
    private readonly catalog: Catalog,
    private readonly locks: LockTable,
    /** transactionLifetimeLimitSeconds as it is when a transaction starts. */
    private readonly lifetimeLimitSeconds: () => number = () => DEFAULT_TRANSACTION_LIFETIME_LIMIT_SECONDS,
  ) {}

  /** The transaction an operation with `autocommit: false` runs in, started if asked. */
  transactionFor(lsid: Document, txnNumber: bigint, startTransaction: boolean): Transaction {
    const entry = this.entry(lsid);
    if (txnNumber < entry.txnNumber) throw transactionTooOld(txnNumber, entry.txnNumber);
    if (startTransaction) {
      if (entry.transaction?.isOpen) this.abort(entry.transaction, "superseded by a newer transaction");
      entry.txnNumber = txnNumber;
      entry.retryReply = undefined;
      const expiresAt = Date.now() + this.lifetimeLimitSeconds() * 1000;
      entry.transaction = new Transaction(lsid, txnNumber, expiresAt);
      return entry.transaction;
    }
    const transaction = entry.transaction;
    if (!transaction || transaction.txnNumber !== txnNumber) {
      throw noSuchTransaction(txnNumber, "no transaction with this number is in progress");
    }
    if (transaction.state === "aborted")
      throw noSuchTransaction(txnNumber, transaction.abortReason ?? "aborted");
    return transaction;
  }

  commit(lsid: Document, txnNumber: bigint): void {
    const transaction = this.existing(lsid, txnNumber);
    if (transaction.state === "committed") return; // a retried commit answers ok again
    if (transaction.state === "aborted")
      throw noSuchTransaction(txnNumber, transaction.abortReason ?? "aborted");
    const writes: DocumentWrite[] = [];
    for (const [collection, overlay] of transaction.writes) {
      for (const [key, doc] of overlay) writes.push({ collection, key, doc });
    }
    for (const collection of transaction.createdCollections) this.catalog.adoptPending(collection);
    if (writes.length > 0) this.catalog.commit(writes, transaction.records);
    this.end(transaction, "committed");
  }

  abortByCommand(lsid: Document, txnNumber: bigint): void {
    const transaction = this.existing(lsid, txnNumber);
    if (transaction.state === "committed") throw transactionCommitted(txnNumber);
    if (transaction.state === "aborted")
      throw noSuchTransaction(txnNumber, transaction.abortReason ?? "aborted");
    this.abort(transaction, "aborted by abortTransaction");
  }

  abort(transaction: Transaction, reason: string): void {
    if (!transaction.isOpen) return;
    transaction.abortReason = reason;
    this.end(transaction, "aborted");
  }

  /** The cached reply when (lsid, txnNumber) already ran; throws when the number is stale. */
  retryReply(lsid: Document, txnNumber: bigint): Document | undefined {
    const entry = this.entry(lsid);
    if (txnNumber < entry.txnNumber) throw transactionTooOld(txnNumber, entry.txnNumber);
    if (txnNumber > entry.txnNumber) {
      if (entry.transaction?.isOpen) this.abort(entry.transaction, "superseded by a newer txnNumber");
      entry.txnNumber = txnNumber;
      entry.retryReply = undefined;
      entry.executedStatements = new Map();
      entry.transaction = undefined;
    }
    return entry.retryReply;
  }

  /**
   * The statements of the retryable write numbered `txnNumber` that an attempt executed, by
   * index (call retryReply first): mongod records each statement's stmtId with its write, and a
   * retry of a command that failed part way skips those (write_ops_exec.cpp).
   */
  executedStatements(lsid: Document, txnNumber: bigint): Map<number, Document> | undefined {
    const entry = this.entry(lsid);
    return entry.txnNumber === txnNumber ? entry.executedStatements : undefined;
  }

  rememberRetryReply(lsid: Document, txnNumber: bigint, reply: Document): void {
    const entry = this.entry(lsid);
    if (entry.txnNumber !== txnNumber) return;
    entry.retryReply = reply;
    entry.executedStatements.clear(); // a retry gets the reply
  }

  /** Records that a command ran in the session, as mongod's session cache does on each use. */
  touch(lsid: Document, now = new Date()): void {
    this.entry(lsid).lastUse = now;
  }

  /** The known sessions, in the order they were first used. */
  list(): LocalSession[] {
    return [...this.sessions.values()].map(({ lsid, lastUse }) => ({ lsid, lastUse }));
  }

  /** Forgets sessions idle past the logical session timeout, unless a transaction is open. */
  expireIdle(now = Date.now()): void {
    for (const [key, entry] of this.sessions) {
      if (entry.transaction?.isOpen) continue;
      if (now - entry.lastUse.getTime() > SESSION_IDLE_LIMIT_MS) this.sessions.delete(key);
    }
  }

  endSessions(lsids: Document[]): void {
    for (const lsid of lsids) {
      const key = this.sessionKey(lsid);
      const entry = this.sessions.get(key);
      if (entry?.transaction) this.abort(entry.transaction, "session ended");
      this.sessions.delete(key);
    }
  }

  /** Aborts transactions past their expiry date, as mongod's reaper does at each pass. */
  abortExpired(now = Date.now()): void {
    for (const entry of this.sessions.values()) {
      const transaction = entry.transaction;
      if (transaction?.isOpen && now >= transaction.expiresAt) {
        this.abort(transaction, "exceeded transactionLifetimeLimitSeconds");
      }
    }
  }

  /** Records a cursor the session opened, forgetting those `isOpen` says are gone. */
  ownCursor(lsid: Document, cursorId: bigint, isOpen: (id: bigint) => boolean): void {
    const cursors = this.entry(lsid).cursors;
    for (const id of cursors) if (!isOpen(id)) cursors.delete(id);
    cursors.add(cursorId);
  }

  /**
   * killSessions: aborts the sessions' open transactions and returns their cursors for the
   * caller to close. The sessions stay usable, as on mongod. `undefined` kills every session.
   */
  kill(lsids: Document[] | undefined, reason: string): bigint[] {
    const entries =
      lsids === undefined
        ? [...this.sessions.values()]
        : lsids.flatMap((lsid) => this.sessions.get(this.sessionKey(lsid)) ?? []);
    const cursors: bigint[] = [];
    for (const entry of entries) {
      if (entry.transaction) this.abort(entry.transaction, reason);
      entry.killSwitch?.abort(reason);
      entry.killSwitch = undefined;
      cursors.push(...entry.cursors);
      entry.cursors.clear();
    }
    return cursors;
  }

  /**
   * The signal of an operation beginning in the session: it aborts when killSessions names the
   * session, as mongod kills the operations of a killed session.
   */
  operationSignal(lsid: Document): AbortSignal {
    const entry = this.entry(lsid);
    entry.killSwitch ??= new AbortController();
    return entry.killSwitch.signal;
  }

  /**
   * At shutdown: aborts every open transaction and interrupts every operation in progress
   * (a blocked fail point's wait among them), as mongod's shutdown does.
   */
  abortAll(): void {
    this.kill(undefined, "server shutting down");
  }

  private existing(lsid: Document, txnNumber: bigint): Transaction {
    const entry = this.entry(lsid);
    const transaction = entry.transaction;
    if (!transaction || transaction.txnNumber !== txnNumber) {
      throw noSuchTransaction(txnNumber, "no transaction with this number on the session");
    }
    return transaction;
  }

  private end(transaction: Transaction, state: "committed" | "aborted"): void {
    if (state === "aborted") {
      for (const collection of transaction.createdCollections)
        this.catalog.discardPending(collection, transaction);
    }
    this.locks.releaseAll(transaction);
    if (transaction.snapshot !== undefined) this.catalog.releaseSnapshot(transaction.snapshot);
    transaction.finish(state);
  }

  private sessionKey(lsid: Document): string {
    if (this.lastKeyed?.lsid !== lsid) this.lastKeyed = { lsid, key: keyOf(lsid) };
    return this.lastKeyed.key;
  }

  private entry(lsid: Document): SessionEntry {
    const key = this.sessionKey(lsid);
    let entry = this.sessions.get(key);
    if (!entry) {
      entry = {
        lsid,
        txnNumber: -1n,
        transaction: undefined,
        retryReply: undefined,
        executedStatements: new Map(),
        lastUse: new Date(),
        cursors: new Set(),
        killSwitch: undefined,
      };
      this.sessions.set(key, entry);
    }
    return entry;
  }
}

// With authentication on, a session is its id and its user's digest (uid), as on mongod.
function keyOf(lsid: Document): string {
  const uid = lsid.uid as { buffer?: Uint8Array } | undefined;
  const owner = uid?.buffer ? `@${Buffer.from(uid.buffer).toString("hex")}` : "";
  return idKey(lsid) + owner;
}

function idKey(lsid: Document): string {
  const id = lsid.id as { buffer?: Uint8Array; toHexString?: () => string } | undefined;
  if (id?.toHexString) return id.toHexString();
  if (id?.buffer) return Buffer.from(id.buffer).toString("hex");
  return JSON.stringify(lsid);
}
