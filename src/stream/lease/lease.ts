// The writer lease: at most one replica corrects documents at a time. The lease is a
// document in the state collection, `{_id: "lease", holder, term, expiresAt, sessions}`.
// Expiry is the server's time ($$NOW), never a replica's clock. A replica takes the lease
// over only once it has expired, and every takeover bumps `term`.
//
// Fencing rests on write conflicts, not on killSessions or on users: each of the holder's
// sessions has a fence document, `{_id: "lease.fence.<session>", holder, term}`, and every
// correction's transaction really writes its session's fence document before its own writes. A takeover is
// one transaction that bumps the term and deletes the previous holder's fence documents, so
// a correction of the previous holder either committed before the takeover (the takeover
// conflicted with it until then), or finds its fence document gone or changed and aborts.
// killSessions only makes a takeover quicker: it aborts a transaction the previous holder
// left open, which the takeover would otherwise wait out (the server reaps it at its
// transactionLifetimeLimitSeconds). docs/semantics.md has the argument in full.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import {
  MongoServerError,
  type Binary,
  type ClientSession,
  type Collection,
  type Db,
  type Document,
} from "mongodb";
import { classify, isRetryableTransactionError, LeaseLostError, TakeoverBlockedError } from "../../errors.js";
import { CODE } from "../../mongodb-codes.js";
import type { Write } from "../../patterns/plan.js";
import { runAttempt } from "../correction/transaction.js";
import type { Fence, Fencing } from "./fencing.js";
import { sessionIdHex } from "./session-pool.js";

export const LEASE_ID = "lease";

/**
 * How long a replica counts the lease held after asking to renew it, as a share of its
 * lifetime: the rest is a margin for the clocks of the replica and of the server.
 */
const HELD_SHARE = 0.8;
const heldMs = (leaseSeconds: number) => leaseSeconds * 1000 * HELD_SHARE;

/**
 * The options of the lease's own client (WriterLeaseOptions.keeperDb): a small pool, and no
 * command waiting for its reply longer than a renewal could still count. Without a socket
 * timeout, a reply that does not come (a primary that hangs, a connection a firewall dropped
 * in silence, which TCP keepalive notices only after minutes) leaves the renewal waiting as
 * long, and every renewal after it, as they never overlap; timed out, the connection is
 * closed and the next renewal takes a new one. Its appName tells its commands (takeovers
 * are transactions too) from the corrections' in the server's logs and currentOp.
 */
export function leaseClientOptions(leaseSeconds: number): {
  appName: string;
  maxPoolSize: number;
  socketTimeoutMS: number;
} {
  return { appName: "mongo-pattern-sidecar-lease", maxPoolSize: 2, socketTimeoutMS: heldMs(leaseSeconds) };
}

interface LeaseDocument {
  _id: string;
  holder: string;
  term: number;
  expiresAt: Date;
  /** The holder's sessions (lsid ids): each has a fence document while the term lasts. */
  sessions: Binary[];
  /** Written by versions whose takeovers could fail half-way; deleted with the rest. */
  previousSessions?: Binary[];
}

/** A session's fence document: it exists, with the holder and term, only while the term lasts. */
interface FenceDocument {
  _id: string;
  holder: string;
  term: number;
  /** Bumped by every correction on the session: a real write, so that a takeover conflicts with it. */
  transactions: number;
}

/** A session's fence document under the lease `leaseId`: `lease.fence.<session>` for the writer lease. */
const fenceIdOf = (leaseId: string, sessionId: Binary): string =>
  `${leaseId}.fence.${sessionIdHex(sessionId)}`;

/** The sessions a lease document lists, those of a half-done takeover of older versions included. */
function sessionsOf(lease: LeaseDocument | null | undefined): Binary[] {
  return [...(lease?.previousSessions ?? []), ...(lease?.sessions ?? [])];
}

export function newHolderId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
}

export interface WriterLeaseOptions {
  /**
   * The sessions this replica corrects on. Only these are fenced: a correction on any other
   * session is refused (fencingWrite).
   */
  sessionIds?: () => Binary[];
  /**
   * Where takeovers, renewals and releases go: a client of its own (leaseClientOptions), so
   * that a renewal never waits for a connection behind the corrections it protects. The
   * fence stays on `db`, inside the correction's transaction. `db` itself when absent.
   */
  keeperDb?: Db;
  /**
   * The lease document's `_id` (LEASE_ID when absent), which also names its fence documents:
   * leases of other ids are held, taken over and fenced each on its own, as a partition's is.
   */
  leaseId?: string;
  /**
   * Whether a takeover also deletes the previous holder's fence documents of the writer lease:
   * a partition's taker fences off the lead of the replica it takes from, which holds every
   * partition while it leads but passes only the writer lease's fence.
   */
  fencesOffWriter?: boolean;
}

/** The outcome of one takeover transaction. */
type TakeoverAttempt =
  | { kind: "taken"; term: number; fenced: Set<string> }
  | { kind: "held elsewhere" }
  /** A transaction of the previous holder has written its fence document and is still open. */
  | { kind: "blocked"; previousSessions: Binary[]; conflict: unknown }
  /** Another replica is taking the lease at the same moment: its transaction holds the document. */
  | { kind: "contended" };

export class WriterLease implements Fencing {
  private readonly keeperDb: Db;
  /** On the keeper's client: takeover, renewal, release. */
  private readonly leases: Collection<LeaseDocument>;
  /** On the corrections' client: the fence documents, written in their transactions. */
  private readonly fences: Collection<FenceDocument>;
  private readonly sessionIds: () => Binary[];
  private readonly leaseId: string;
  private readonly fencesOffWriter: boolean;
  private term: number | undefined;
  /** The fence documents of this term, by _id. */
  private fenced = new Set<string>();
  /** Local deadline: past it we stop writing even if the database was not reachable to tell us. */
  private heldUntil = 0;
  /** Whether the last takeover found the lease held, unexpired, by another replica. */
  private heldByAnother = false;

  constructor(
    db: Db,
    stateCollection: string,
    readonly holder: string,
    private readonly leaseSeconds: number,
    options: WriterLeaseOptions = {},
  ) {
    this.keeperDb = options.keeperDb ?? db;
    this.leases = this.keeperDb.collection<LeaseDocument>(stateCollection);
    this.fences = db.collection<FenceDocument>(stateCollection);
    this.sessionIds = options.sessionIds ?? (() => []);
    this.leaseId = options.leaseId ?? LEASE_ID;
    this.fencesOffWriter = options.fencesOffWriter ?? false;
  }

  /** The term this replica holds the lease at, as far as it knows, even past its local margin. */
  get termHeld(): number | undefined {
    return this.term;
  }

  /** Whether the last attempt to take the lease found another replica holding it. */
  get heldElsewhere(): boolean {
    return this.heldByAnother;
  }

  /** Whether this replica may write now, by its own clock (with a safety margin). */
  get held(): boolean {
    return this.term !== undefined && Date.now() < this.heldUntil;
  }

  /**
   * Renews the lease if held, takes it over if free or expired; returns whether it is held.
   * Throws TakeoverBlockedError while a transaction of the previous holder stays open.
   */
  async acquireOrRenew(): Promise<boolean> {
    const requestedAt = Date.now();
    this.term = this.term !== undefined ? await this.renew() : await this.takeOver();
    // Count from before the request: the database may have applied it at any point since.
    this.heldUntil = this.term === undefined ? 0 : requestedAt + heldMs(this.leaseSeconds);
    return this.held;
  }

  /**
   * Renews those of `leases` held (one holder's, in one collection), as acquireOrRenew would
   * each, in one command: a replica renews every partition it holds each round, and a request
   * per partition was most of what an idle replica sent. A lease no longer at its holder and
   * term is lost, as on a failed renewal; those not held are left to acquireOrRenew.
   */
  static async renewTogether(leases: readonly WriterLease[]): Promise<void> {
    const held = leases.filter((lease) => lease.term !== undefined);
    const [first] = held;
    if (!first) return;
    const requestedAt = Date.now();
    const atTerm = held.map(({ leaseId, term }) => ({ _id: leaseId, term }));
    const filter = { holder: first.holder, $or: atTerm };
    const { matchedCount } = await first.leases.updateMany(filter, [{ $set: { expiresAt: first.expiry() } }]);
    // Which ones were not renewed: each one not at its holder and term now was not then.
    const renewed =
      matchedCount === held.length
        ? new Set(held.map((lease) => lease.leaseId))
        : new Set(
            (await first.leases.find(filter, { projection: { _id: 1 } }).toArray()).map((doc) => doc._id),
          );
    for (const lease of held) {
      if (renewed.has(lease.leaseId)) lease.heldUntil = requestedAt + heldMs(lease.leaseSeconds);
      else [lease.term, lease.heldUntil] = [undefined, 0];
    }
  }

  /** The new expiry, by the server's clock. */
  private expiry(): Document {
    return { $add: ["$$NOW", this.leaseSeconds * 1000] };
  }

  private async renew(): Promise<number | undefined> {
    const result = await this.leases.updateOne({ _id: this.leaseId, holder: this.holder, term: this.term }, [
      { $set: { expiresAt: this.expiry() } },
    ]);
    return result.matchedCount === 1 ? this.term : undefined;
  }

  /**
   * Takes the lease when it is absent or expired. A takeover that conflicts with an open
   * transaction of the previous holder kills its sessions and tries once more: where the
   * server refuses killSessions (another user's sessions, a platform without it), it throws
   * and the next renewal tries again, until the transaction ends by itself.
   */
  private async takeOver(): Promise<number | undefined> {
    this.heldByAnother = false;
    let attempt = await this.attemptTakeover();
    if (attempt.kind === "blocked") {
      await this.killSessions(attempt);
      attempt = await this.attemptTakeover();
    }
    if (attempt.kind === "blocked") {
      throw new TakeoverBlockedError(
        "a transaction still holds the lease's documents (the previous holder's, or another replica's taking it too); taking over once it ends",
        { holder: this.holder, lease: this.leaseId },
        { cause: attempt.conflict },
      );
    }
    this.heldByAnother = attempt.kind === "held elsewhere" || attempt.kind === "contended";
    if (attempt.kind !== "taken") return undefined;
    this.fenced = attempt.fenced;
    return attempt.term;
  }

  private async killSessions({ previousSessions }: { previousSessions: Binary[] }): Promise<void> {
    // Never an empty list: `killSessions: []` kills every session of the caller's user.
    if (previousSessions.length === 0) return;
    try {
      await this.keeperDb.admin().command({ killSessions: previousSessions.map((id) => ({ id })) });
    } catch (refusal) {
      if (classify(refusal) !== "fatal") throw refusal;
      // Refused: the conflict itself still fences, the takeover waits for the transaction to end.
    }
  }

  /**
   * One transaction: takes the lease document when it is absent or expired (by $$NOW; when it
   * is held, the upsert's insert collides with it on `_id`), deletes the previous holder's
   * fence documents and writes this holder's.
   */
  private async attemptTakeover(): Promise<TakeoverAttempt> {
    const sessions = this.sessionIds();
    // What the takeover found, for killSessions when it conflicts with the previous holder.
    const found: { previous?: LeaseDocument | null } = {};
    const session = this.keeperDb.client.startSession();
    try {
      const term = await runAttempt(session, async () => {
        const previous = await this.leases.findOneAndUpdate(
          { _id: this.leaseId, $expr: { $lte: ["$expiresAt", "$$NOW"] } },
          [
            {
              $set: {
                holder: this.holder,
                term: { $add: [{ $ifNull: ["$term", 0] }, 1] },
                expiresAt: this.expiry(),
                sessions: { $literal: sessions },
              },
            },
            { $unset: ["previousSessions", "previousExpiresAt"] },
          ],
          { upsert: true, returnDocument: "before", session },
        );
        found.previous = previous;
        const newTerm = (previous?.term ?? 0) + 1;
        await this.replaceFences(previous, sessions, newTerm, session);
        return newTerm;
      });
      return { kind: "taken", term, fenced: new Set(sessions.map((id) => fenceIdOf(this.leaseId, id))) };
    } catch (error) {
      if (error instanceof MongoServerError && error.code === CODE.DuplicateKey)
        return { kind: "held elsewhere" };
      if (!isRetryableTransactionError(error)) throw error;
      // A conflict on the lease document itself: no previous holder's transaction is in the
      // way, another replica's takeover is; whoever commits first holds it, and a later round
      // sees which (replicas started together race for it, and none of them should warn).
      if (found.previous === undefined) return { kind: "contended" };
      return { kind: "blocked", previousSessions: sessionsOf(found.previous), conflict: error };
    } finally {
      await session.endSession();
    }
  }

  private async replaceFences(
    previous: LeaseDocument | null,
    sessions: Binary[],
    term: number,
    session: ClientSession,
  ): Promise<void> {
    const previousSessions = sessionsOf(previous);
    const previousFences = previousSessions.map((id) => fenceIdOf(this.leaseId, id));
    if (previousFences.length > 0)
      await this.fencesOnKeeper.deleteMany({ _id: { $in: previousFences } }, { session });
    // Only another previous holder's: a replica retaking its own lease keeps its writer fences.
    if (this.fencesOffWriter && previous && previous.holder !== this.holder && previousSessions.length > 0) {
      const writerFences = previousSessions.map((id) => fenceIdOf(LEASE_ID, id));
      await this.fencesOnKeeper.deleteMany(
        { _id: { $in: writerFences }, holder: previous.holder },
        { session },
      );
    }
    if (sessions.length === 0) return;
    await this.fencesOnKeeper.insertMany(
      sessions.map((id) => ({
        _id: fenceIdOf(this.leaseId, id),
        holder: this.holder,
        term,
        transactions: 0,
      })),
      { session },
    );
  }

  /** The fence documents, on the keeper's client (the takeover's transaction runs there). */
  private get fencesOnKeeper(): Collection<FenceDocument> {
    return this.keeperDb.collection<FenceDocument>(this.fences.collectionName);
  }

  /**
   * The fencing write, inside a correction's transaction: it matches only while this term
   * lasts in the transaction's snapshot, and being a real write on the session's own fence
   * document it conflicts with a takeover, never with this replica's other corrections.
   */
  async fence(session: ClientSession): Promise<void> {
    const { filter, update } = this.fencingWrite(session);
    const result = await this.fences.updateOne(filter, update, { session });
    if (result.matchedCount === 0) throw this.takenOver();
  }

  /**
   * fence()'s write, for a command that carries it with the correction's own writes (bulkWrite);
   * throws at once when the lease has expired by our own clock. If it matches nothing, the
   * correction must fail with takenOver().
   */
  fencingWrite(session: ClientSession): Extract<Write, { op: "updateOne" }> {
    if (!this.held)
      throw new LeaseLostError("writer lease expired locally", { holder: this.holder, lease: this.leaseId });
    const fenceId = session.id ? fenceIdOf(this.leaseId, session.id.id) : undefined;
    if (fenceId === undefined || !this.fenced.has(fenceId)) {
      throw new Error("a correction ran on a session the writer lease does not list, so it cannot be fenced");
    }
    return {
      op: "updateOne",
      collection: this.fences.collectionName,
      filter: { _id: fenceId, holder: this.holder, term: this.term },
      update: { $inc: { transactions: 1 } },
    };
  }

  /** One fence, this lease's, whatever the targets: every correction is under it. */
  fencesFor(_targets: unknown, session: ClientSession): Fence[] {
    return [{ write: this.fencingWrite(session), takenOver: () => this.takenOver() }];
  }

  /** What a fencing write that matched nothing means. */
  takenOver(): LeaseLostError {
    return new LeaseLostError("another replica holds the writer lease", {
      holder: this.holder,
      lease: this.leaseId,
      term: this.term,
    });
  }

  /** Lets another replica take over at once (graceful stop); harmless when not held. */
  async release(): Promise<void> {
    if (this.term === undefined) return;
    const term = this.term;
    this.term = undefined;
    this.heldUntil = 0;
    await this.leases.updateOne(
      { _id: this.leaseId, holder: this.holder, term },
      { $set: { expiresAt: new Date(0) } },
    );
  }

  /** Forgets the lease without telling the database (it was found lost). */
  forget(): void {
    this.term = undefined;
    this.heldUntil = 0;
  }
}
