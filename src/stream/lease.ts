// The writer lease: at most one replica corrects documents at a time. The lease is a
// document in the state collection, `{_id: "lease", holder, term, expiresAt, sessions}`.
// Expiry is the server's time ($$NOW), never a replica's clock. A replica takes the lease
// over only once it has expired; every takeover bumps `term` and then kills the sessions
// the previous holder listed (killSessions), which aborts any transaction it left open: a
// leader killed or paused inside a correction can neither block the applications' writes
// until the server reaps its transaction nor commit once another replica leads. Every
// correction also checks `{holder: me, term: myTerm}` inside its own transaction.
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
import { LeaseLostError } from "../errors.js";

export const LEASE_ID = "lease";
const DUPLICATE_KEY = 11000;

interface LeaseDocument {
  _id: string;
  holder: string;
  term: number;
  expiresAt: Date;
  /** The holder's sessions (lsid ids), for the next holder to kill. */
  sessions: Binary[];
  /** At a takeover: the previous holder's sessions, still to be killed. */
  previousSessions?: Binary[];
}

export function newHolderId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
}

export interface WriterLeaseOptions {
  /** The sessions this replica corrects on; a takeover kills the previous holder's. */
  sessionIds?: () => Binary[];
  /**
   * Where takeovers, renewals and releases go: a client of its own (a small pool), so that
   * a renewal never waits for a connection behind the corrections it protects. The fence
   * stays on `db`, inside the correction's transaction. `db` itself when absent.
   */
  keeperDb?: Db;
}

export class WriterLease {
  private readonly keeperDb: Db;
  /** On the keeper's client: takeover, renewal, release. */
  private readonly leases: Collection<LeaseDocument>;
  /** On the corrections' client: the fence, on their sessions. */
  private readonly fenced: Collection<LeaseDocument>;
  private readonly sessionIds: () => Binary[];
  private term: number | undefined;
  /** Local deadline: past it we stop writing even if the database was not reachable to tell us. */
  private heldUntil = 0;

  constructor(
    db: Db,
    stateCollection: string,
    readonly holder: string,
    private readonly leaseSeconds: number,
    options: WriterLeaseOptions = {},
  ) {
    this.keeperDb = options.keeperDb ?? db;
    this.leases = this.keeperDb.collection<LeaseDocument>(stateCollection);
    this.fenced = db.collection<LeaseDocument>(stateCollection);
    this.sessionIds = options.sessionIds ?? (() => []);
  }

  /** Whether this replica may write now, by its own clock (with a safety margin). */
  get held(): boolean {
    return this.term !== undefined && Date.now() < this.heldUntil;
  }

  /** Renews the lease if held, takes it over if free or expired; returns whether it is held. */
  async acquireOrRenew(): Promise<boolean> {
    const requestedAt = Date.now();
    const term = this.term !== undefined ? await this.renew() : await this.takeOver();
    this.term = term;
    // Count from before the request: the database may have applied it at any point since.
    this.heldUntil = term === undefined ? 0 : requestedAt + this.leaseSeconds * 800;
    return this.held;
  }

  /** The new expiry, by the server's clock. */
  private expiry(): Document {
    return { $add: ["$$NOW", this.leaseSeconds * 1000] };
  }

  private async renew(): Promise<number | undefined> {
    const result = await this.leases.updateOne({ _id: LEASE_ID, holder: this.holder, term: this.term }, [
      { $set: { expiresAt: this.expiry(), sessions: { $literal: this.sessionIds() } } },
    ]);
    return result.matchedCount === 1 ? this.term : undefined;
  }

  /**
   * Takes the lease when it is absent or expired (by $$NOW), in one upsert: when it is held,
   * the upsert's insert collides with it on `_id`. Then kills the previous holder's sessions.
   */
  private async takeOver(): Promise<number | undefined> {
    let taken: LeaseDocument | null;
    try {
      taken = await this.leases.findOneAndUpdate(
        { _id: LEASE_ID, $expr: { $lte: ["$expiresAt", "$$NOW"] } },
        [
          {
            $set: {
              holder: this.holder,
              term: { $add: [{ $ifNull: ["$term", 0] }, 1] },
              expiresAt: this.expiry(),
              // Kept until killed: a takeover that failed half-way must not forget them.
              previousSessions: {
                $concatArrays: [{ $ifNull: ["$previousSessions", []] }, { $ifNull: ["$sessions", []] }],
              },
              sessions: { $literal: this.sessionIds() },
            },
          },
        ],
        { upsert: true, returnDocument: "after" },
      );
    } catch (error) {
      if (error instanceof MongoServerError && error.code === DUPLICATE_KEY) return undefined;
      throw error;
    }
    if (!taken) return undefined;
    await this.killPreviousSessions(taken);
    return taken.term;
  }

  // Before this replica writes anything: a transaction the previous holder left open must
  // abort now, not commit later. Killing sessions that no longer exist is a no-op.
  private async killPreviousSessions(taken: LeaseDocument): Promise<void> {
    const previous = taken.previousSessions ?? [];
    if (previous.length === 0) return;
    await this.keeperDb.admin().command({ killSessions: previous.map((id) => ({ id })) });
    await this.leases.updateOne({ _id: LEASE_ID, term: taken.term }, { $unset: { previousSessions: "" } });
  }

  /**
   * The fencing write, inside a correction's transaction. `$set` of the unchanged holder:
   * it matches only while we hold the lease in the transaction's snapshot, and being a no-op
   * it does not make concurrent corrections of this replica conflict on the lease document.
   */
  async fence(session: ClientSession): Promise<void> {
    if (!this.held) throw new LeaseLostError("writer lease expired locally", { holder: this.holder });
    const result = await this.fenced.updateOne(
      { _id: LEASE_ID, holder: this.holder, term: this.term },
      { $set: { holder: this.holder } },
      { session },
    );
    if (result.matchedCount === 0) {
      throw new LeaseLostError("another replica holds the writer lease", {
        holder: this.holder,
        term: this.term,
      });
    }
  }

  /** Lets another replica take over at once (graceful stop); harmless when not held. */
  async release(): Promise<void> {
    if (this.term === undefined) return;
    const term = this.term;
    this.term = undefined;
    this.heldUntil = 0;
    await this.leases.updateOne(
      { _id: LEASE_ID, holder: this.holder, term },
      { $set: { expiresAt: new Date(0) } },
    );
  }

  /** Forgets the lease without telling the database (it was found lost). */
  forget(): void {
    this.term = undefined;
    this.heldUntil = 0;
  }
}
